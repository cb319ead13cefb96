/**
 * Words and symbols shared by every plan renderer: the symbol and verb of an
 * action, how a value is shown, and the summary line. Rendering only shows
 * what the plan says; nothing here computes a change.
 */
import { safeText } from '../text/safe-text.js';
import { diffLines } from 'diff';
import {
  isIncomplete,
  unreadableNames,
  type ClockSkew,
  type FieldChange,
  type EndingGrant,
  type PendingWrite,
  type Plan,
  type SupersededWait,
} from '../plan-model/index.js';

export type { Tone } from '../plan-model/index.js';

/** A value as it reads in the plan: JSON for data, `(sensitive)` for write-only values. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(not set)';
  return JSON.stringify(value);
}

const isMultiline = (value: unknown): value is string => typeof value === 'string' && value.includes('\n');

/**
 * One field change as lines (without indentation or symbol colour): `path = after`, `path = before -> after`,
 * or, for multi-line strings, a line diff made with `diff`.
 */
export function changeLines(change: FieldChange, creating: boolean): { symbol: string; text: string }[] {
  const suffix = `${change.note ? `  (${change.note})` : ''}${change.forcesReplace ? '  # forces replacement' : ''}`;
  if (change.sensitive) return [{ symbol: creating ? '+' : '~', text: `${change.path} = (sensitive)${suffix}` }];
  // A value that is not changed but explains the step (an expired token's expiresAt).
  if (change.note && !('after' in change)) return [{ symbol: '~', text: `${change.path} = ${showValue(change.before)}${suffix}` }];
  if (!('before' in change)) return [{ symbol: '+', text: `${change.path} = ${showValue(change.after)}${suffix}` }];
  if (!('after' in change)) return [{ symbol: '-', text: `${change.path} = ${showValue(change.before)}${suffix}` }];
  if (isMultiline(change.before) || isMultiline(change.after)) {
    const lines = [{ symbol: '~', text: `${change.path} = <<-${suffix}` }];
    for (const part of diffLines(String(change.before ?? ''), String(change.after ?? ''))) {
      const symbol = part.added ? '+' : part.removed ? '-' : ' ';
      for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push({ symbol, text: `    ${line}` });
    }
    return lines;
  }
  return [{ symbol: '~', text: `${change.path} = ${showValue(change.before)} -> ${showValue(change.after)}${suffix}` }];
}

export function summaryLine(plan: Plan): string {
  const { add, change, replace, remove, move, forget } = plan.summary;
  const imports = plan.summary.import > 0 ? `${plan.summary.import} to import, ` : '';
  // Moves and forgets send no write: counted after the rest, only when there are some (as Terraform's `to forget`).
  const extra = [move > 0 ? `${move} to move` : '', forget > 0 ? `${forget} to forget` : '']
    .filter(Boolean)
    .map((part) => `, ${part}`)
    .join('');
  const counts = `${imports}${add} to add, ${change} to change, ${replace} to replace, ${remove} to remove${extra}.`;
  if (!isIncomplete(plan)) return `Plan: ${counts}`;
  const names = unreadableNames(plan);
  return `Plan incomplete: ${names.length} item${names.length === 1 ? '' : 's'} could not be read (${names.join(', ')}), so nothing is known about ${names.length === 1 ? 'it' : 'them'}; for the rest: ${counts}`;
}

const records = (n: number) => `${n} record${n === 1 ? '' : 's'}`;

/**
 * The records the plan leaves without a value (plan.withoutValue): what, and how to give them one; undefined
 * when there are none. Every renderer shows it, and "No changes" never stands alone beside it.
 */
export function withoutValueNote(plan: Plan): { what: string; addresses: string[]; todo: string } | undefined {
  const addresses = plan.withoutValue ?? [];
  if (addresses.length === 0) return undefined;
  return {
    what: `${records(addresses.length)} ${addresses.length === 1 ? 'has' : 'have'} no value, and applying gives ${addresses.length === 1 ? 'it' : 'them'} none`,
    addresses,
    todo: 'Give each a `value:` in the configuration (`{ env: NAME }` or `{ file: PATH }`) and apply; values are never exported or copied from another account.',
  };
}

/** The line shown when applying the plan would change nothing; undefined when it would. */
export function noChangesLine(plan: Plan): string | undefined {
  const acting = plan.steps.some((s) => s.action !== 'no-op');
  if (plan.mode === 'refresh-only') {
    return plan.drift.length === 0 ? 'No changes. Your infrastructure still matches what cplane last applied.' : undefined;
  }
  // An incomplete plan never says "No changes": what could not be read may well have some (summaryLine).
  if (acting || isIncomplete(plan) || (plan.pendingWrites?.length ?? 0) > 0) return undefined;
  if (plan.mode === 'destroy') return 'No changes. No objects need to be destroyed.';
  const empty = plan.withoutValue?.length ?? 0;
  if (empty > 0) return `No changes to make, but ${records(empty)} ${empty === 1 ? 'has' : 'have'} no value (listed above).`;
  const unverifiable = plan.notVerifiable?.length ?? 0;
  if (unverifiable > 0)
    return `No changes. Your infrastructure matches the configuration as far as the API shows it (${unverifiable} not verifiable from the API, listed above).`;
  return 'No changes. Your infrastructure matches the configuration.';
}

/** The heading of `plan.notVerifiable` in every renderer. */
export const NOT_VERIFIABLE_HEADING =
  'Not verifiable from the API (no operation reads these back: compared with what cplane last applied):';

/** The heading of the pending writes, and one line per write: `ADDRESS: createGateway will be resent first (then created)`. */
export const PENDING_HEADING = 'Pending writes an earlier apply left unconfirmed (they will be resent first, with their saved keys):';

export function pendingWriteLine(write: PendingWrite): string {
  return `${write.address}: ${write.operation} will be resent first (then ${write.becomes}), saved ${write.savedAt}`;
}

/** The heading of the superseded objects still in their overlap, and one line each. */
export const SUPERSEDED_HEADING =
  'Superseded by a renewal, still working during their overlap (the first apply after the time shown revokes each):';

export function supersededLine(wait: SupersededWait): string {
  const outputs = Object.entries(wait.outputs ?? {})
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
  const until = `${wait.revocableAt.slice(0, 16).replace('T', ' ')} UTC`;
  return `${wait.address}: old ${wait.kind} ${wait.id}${outputs ? ` (${outputs})` : ''} until ${until}`;
}

/** The heading of the grants that end within 7 days, and one line each (`left` was measured by the planner). */
export const ENDING_HEADING = 'Grants that end within 7 days (every plan after the time shown revokes each):';

export function endingLine(ending: EndingGrant): string {
  return `${ending.address}: ends ${ending.left}, at ${ending.until.slice(0, 16).replace('T', ' ')} UTC${ending.reason ? ` (${ending.reason})` : ''}`;
}

/** The warning of a plan whose two clocks disagree (planner/stages/clocks.ts). */
export function clockSkewLine(skew: ClockSkew): string {
  const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
  return `the API's clock said ${minute(skew.api)} and this machine's ${minute(skew.machine)}, more than 5 minutes apart: grants, token expiries and overlaps were ended by the earlier deadline of the two. Check this machine's clock (NTP); a wrong API clock cannot keep access alive.`;
}

/** `Payments (0f3c…)`, or the id alone when the name is not known. */
export function accountLabel(plan: Plan): string {
  const name = plan.origin?.accountName;
  return name ? `${safeText(name)} (${plan.account})` : plan.account;
}
