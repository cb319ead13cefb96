/**
 * The one table of what a plan says beside its steps (plan-model/notice.ts). Each entry is a check: its code, the
 * heading of its section, its severity, which plans run it (`drift`: the refresh-only plan `cplane drift` makes
 * shows it), what it finds, and the line each finding reads as. Everything else is derived from this table: the
 * renderers' sections (one loop), `autoApprove`'s `plan.warnings`, what policies see, and the docs table of
 * notices (docs/planning.md, scripts/docs-tables.mjs). Adding a notice is an entry here and its test.
 */
import type { Notice, NoticeSeverity, PlanStep, ResourceKind, SourceRange, SpendWarning, StepCause } from '../../plan-model/index.js';
import type { PlannedInputs } from '../stage-inputs.js';
import { supersededWaiting } from '../stages/reissue.js';
import { uncheckedWriteOnly } from '../stages/write-only-values.js';
import { dueItems } from './due.js';
import { endingSoon } from './ends.js';
import { notVerifiable } from './not-verifiable.js';

/** What every check may read: the plan as the stages and the earlier checks left it. */
export interface NoticeInput {
  after: PlannedInputs;
  steps: readonly PlanStep[];
  targets: readonly string[];
  /** Whether an address is in the plan's scope (`--target`, `--exclude`). */
  covers: (address: string) => boolean;
  /** The records left without a value (without-value.ts; grants-without-value.ts needs them first). */
  emptyRecords: readonly string[];
  spendWarnings: readonly SpendWarning[];
  env: NodeJS.ProcessEnv;
  /** Problems a Service Account token cannot check, left to the apply's person token (run-checks.ts). */
  checkedAtApply: readonly { address?: string; range?: SourceRange }[];
}

/** One thing a check found: where, and the facts its line is made from (`data` of the notice). */
export interface Finding<D> {
  address?: string;
  kind?: ResourceKind;
  at?: SourceRange;
  data: D;
}

export interface NoticeCheck<D = Record<string, unknown>> {
  code: string;
  heading: string;
  severity: NoticeSeverity;
  /** Which plans run it: `plan` normal and destroy ones, `drift` the refresh-only ones (`cplane drift`). */
  shownBy: { plan: boolean; drift: boolean };
  /** The keys of `data`, for the docs table: key -> what it holds. */
  dataKeys: Record<string, string>;
  find(input: NoticeInput): Finding<D>[];
  /** The line for people (rendering escapes it). */
  message(found: Finding<D>): string;
}

/** An entry with its data typed (the table holds them all as one type). */
const check = <D>(entry: NoticeCheck<D>) => entry as unknown as NoticeCheck;

const utcMinute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** What each cause of something due is called. */
const dueWords: Readonly<Partial<Record<StepCause, string>>> = {
  expired: 'expired: issued again by the next reconcile or apply',
  renewal: 'in its renewal window',
  'overlap-ended': 'a superseded one whose overlap ended, to revoke',
  'rotation-due': 'rotation due',
  'grant-expired': 'a grant past its until, to revoke',
  delivery: 'a token to deliver',
};

export const noticeChecks: readonly NoticeCheck[] = [
  check<{ api: string; machine: string }>({
    code: 'clock_skew',
    heading: "The API's clock and this machine's are more than 5 minutes apart:",
    severity: 'warning',
    shownBy: { plan: true, drift: true },
    dataKeys: { api: "the API's clock (ISO time)", machine: "this machine's (ISO time)" },
    find: ({ after }) => (after.facts.clocks.skew ? [{ data: after.facts.clocks.skew }] : []),
    message: ({ data }) =>
      `the API's clock said ${utcMinute(data.api)} and this machine's ${utcMinute(data.machine)}, more than 5 minutes apart: grants, token expiries and overlaps were ended by the earlier deadline of the two. Check this machine's clock (NTP); a wrong API clock cannot keep access alive.`,
  }),
  check<{ revocableAt: string; id: string; outputs?: Record<string, string> }>({
    code: 'superseded',
    heading: 'Superseded by a renewal, still working during their overlap (the first apply after the time shown revokes each):',
    severity: 'info',
    shownBy: { plan: true, drift: false },
    dataKeys: { id: 'the old object', outputs: "its non-secret outputs (a token's `tokenPrefix`)", revocableAt: 'when it may be revoked' },
    find: ({ after, steps }) =>
      after.mode !== 'normal'
        ? []
        : supersededWaiting(after.state, steps, after.known.nowForEnds).map(({ address, kind, ...data }) => ({ address, kind, data })),
    message: ({ address, kind, data }) => {
      const outputs = Object.entries(data.outputs ?? {})
        .map(([name, value]) => `${name} ${value}`)
        .join(', ');
      return `${address}: old ${kind} ${data.id}${outputs ? ` (${outputs})` : ''} until ${utcMinute(data.revocableAt)}`;
    },
  }),
  check<{ until: string; left: string; reason?: string }>({
    code: 'ending_soon',
    heading: 'Grants that end within 7 days (every plan after the time shown revokes each):',
    severity: 'info',
    shownBy: { plan: true, drift: false },
    dataKeys: { until: 'the configured end (ISO time)', left: 'the time left, in words', reason: 'the configured reason' },
    find: ({ after, covers }) =>
      after.mode !== 'normal'
        ? []
        : endingSoon(after.desired.resources, after.known.nowForEnds)
            .filter((e) => covers(e.address))
            .map(({ address, kind, ...data }) => ({ address, kind, data })),
    message: ({ address, data }) => `${address}: ends ${data.left}, at ${utcMinute(data.until)}${data.reason ? ` (${data.reason})` : ''}`,
  }),
  check<{ cause: StepCause; note?: string }>({
    code: 'due',
    heading: 'Due (time made these due; `cplane reconcile` or `cplane apply` does them):',
    severity: 'warning',
    shownBy: { plan: false, drift: true },
    dataKeys: { cause: 'why (`renewal`, `expired`, `rotation-due`, `overlap-ended`, `grant-expired`, `delivery`)', note: 'in words' },
    find: ({ after }) => dueItems(after).map(({ address, kind, ...data }) => ({ address, kind, data })),
    message: ({ address, data }) => `${address} ${dueWords[data.cause] ?? data.cause}${data.note ? `: ${data.note}` : ''}`,
  }),
  check<{ field: string; reason: string }>({
    code: 'not_checked',
    heading: 'Write-only values not checked (a drift check reads no secret, and the API never returns them):',
    severity: 'warning',
    shownBy: { plan: false, drift: true },
    dataKeys: { field: 'the write-only field (`value`, `headers.Authorization`)', reason: 'why its source is absent' },
    find: ({ after, env }) => uncheckedWriteOnly(after.desired, after.state, env).map(({ address, ...data }) => ({ address, data })),
    message: ({ address, data }) => `${address} ${data.field}: not checked (${data.reason})`,
  }),
  check<Record<string, never>>({
    code: 'not_verifiable',
    heading: 'Not verifiable from the API (no operation reads these back: compared with what cplane last applied):',
    severity: 'info',
    shownBy: { plan: true, drift: true },
    dataKeys: {},
    find: ({ after, steps, targets }) => notVerifiable(after, steps, targets).map(({ address, kind }) => ({ address, kind, data: {} })),
    message: ({ address }) => `${address}: not verifiable from the API`,
  }),
  check<{ warning: string; detail: string }>({
    code: 'spend',
    heading: 'Spend warnings:',
    severity: 'warning',
    shownBy: { plan: true, drift: false },
    dataKeys: {
      warning: '`limit_below_spend`, `model_with_traffic_removed`, `token_without_limit` or `tokens_oversubscribe_gateway`',
      detail: 'what it means, in words',
    },
    find: ({ spendWarnings }) =>
      spendWarnings.map((w) => ({ address: w.address, ...(w.at ? { at: w.at } : {}), data: { warning: w.code, detail: w.message } })),
    message: ({ address, data }) => `${address}: ${data.detail}`,
  }),
  check<Record<string, never>>({
    code: 'without_value',
    heading:
      'Records without a value: applying gives them none. Give each a `value:` in the configuration (`{ env: NAME }` or `{ file: PATH }`) and apply; values are never exported or copied from another account:',
    severity: 'warning',
    shownBy: { plan: true, drift: true },
    dataKeys: {},
    find: ({ emptyRecords }) => emptyRecords.map((address) => ({ address, data: {} })),
    message: ({ address }) => `${address}: no value`,
  }),
  check<Record<string, never>>({
    code: 'service_account_unchecked',
    heading: "Checked at apply (GET /service-accounts needs a person's token; the apply, which holds one, checks these):",
    severity: 'warning',
    shownBy: { plan: true, drift: true },
    dataKeys: {},
    find: ({ checkedAtApply }) =>
      checkedAtApply.map((p) => ({ ...(p.address ? { address: p.address } : {}), ...(p.range ? { at: p.range } : {}), data: {} })),
    message: ({ address }) => `${address}: a Service Account token cannot list service accounts: checked at apply`,
  }),
];

/** The notice of one finding: the check's words and the finding's facts. */
export function noticeOf(entry: NoticeCheck, found: Finding<Record<string, unknown>>): Notice {
  return {
    code: entry.code,
    severity: entry.severity,
    heading: entry.heading,
    message: entry.message(found),
    ...(found.address !== undefined ? { address: found.address } : {}),
    ...(found.kind ? { kind: found.kind } : {}),
    ...(found.at ? { at: found.at } : {}),
    data: found.data,
  };
}

/** Every notice of the plan, in the table's order. */
export function findNotices(input: NoticeInput, checks: readonly NoticeCheck[] = noticeChecks): Notice[] {
  const drift = input.after.mode === 'refresh-only';
  return checks
    .filter((entry) => (drift ? entry.shownBy.drift : entry.shownBy.plan))
    .flatMap((entry) => entry.find(input).map((found) => noticeOf(entry, found)));
}

/** The checks by code. */
export const noticeCheckOf = (code: string): NoticeCheck | undefined => noticeChecks.find((entry) => entry.code === code);
