/**
 * What a plan says beside its steps, in one list: `plan.notices`. The checks of planner/checks/notices.ts make them;
 * each entry of that table gives its code, heading, severity and whether `cplane drift` shows it, and every reader
 * (text, Markdown, the drift report, policies, `autoApprove`, the schema, the docs table) goes over the list without
 * naming a code. A notice carries the words the check chose (`heading`, `message`) beside its data, as a step
 * carries its `reason`: rendering never computes.
 */
import type { ResourceKind, SourceRange } from './kind.js';

/** `warning`: a reviewer must act or accept it (counted by `autoApprove`'s `plan.warnings`); `info`: said, nothing to do. */
export type NoticeSeverity = 'warning' | 'info';

export interface Notice {
  /** Stable, for programs: `without_value`, `ending_soon`, `spend`… (docs/planning.md, "Notices"). */
  code: string;
  severity: NoticeSeverity;
  /** The heading its section has in every renderer; the same for every notice of one code. */
  heading: string;
  /** One line for people: `user_share.p/r/dana: ends in 3 days, at 2026-12-01 18:00 UTC`. */
  message: string;
  address?: string;
  kind?: ResourceKind;
  /** Where in the configuration it points (annotations). */
  at?: SourceRange;
  /** The facts the message was made from, for programs; each code's keys are in docs/planning.md. */
  data: Record<string, unknown>;
}

/** The notices of one code, in the order the plan has them: one section of a rendered plan. */
export interface NoticeGroup {
  code: string;
  heading: string;
  severity: NoticeSeverity;
  notices: Notice[];
}

/** The notices grouped by code, in order of first appearance (the planner emits them in its table's order). */
export function noticeGroups(notices: readonly Notice[] | undefined): NoticeGroup[] {
  const groups = new Map<string, NoticeGroup>();
  for (const notice of notices ?? []) {
    const group = groups.get(notice.code);
    if (group) group.notices.push(notice);
    else groups.set(notice.code, { code: notice.code, heading: notice.heading, severity: notice.severity, notices: [notice] });
  }
  return [...groups.values()];
}

/** How many notices of severity `warning` a plan has. */
export const warningCount = (notices: readonly Notice[] | undefined): number =>
  (notices ?? []).filter((n) => n.severity === 'warning').length;

/** What time made due (`cplane drift` exits 2 on them, and counts them in its headline). */
export const dueNotices = (plan: { notices?: readonly Notice[] }): Notice[] => (plan.notices ?? []).filter((n) => n.code === 'due');

/**
 * The top-level fields that plan format 3 had, one per kind of notice, with the code each became. They are frozen:
 * a new notice is a code of its own and no field. A saved plan of format 3 is read into notices with them
 * (saved-plan/read.ts), and policies still see these names as aliases (`legacyNoticeFields`).
 */
export const LEGACY_NOTICE_FIELDS = {
  withoutValue: 'without_value',
  superseded: 'superseded',
  endingSoon: 'ending_soon',
  notVerifiable: 'not_verifiable',
  notChecked: 'not_checked',
  due: 'due',
  clockSkew: 'clock_skew',
} as const;

export type LegacyNoticeField = keyof typeof LEGACY_NOTICE_FIELDS;

/** A notice's address, kind and data as one object: the item of the old field. */
const legacyItem = (n: Notice) => ({
  ...(n.address !== undefined ? { address: n.address } : {}),
  ...(n.kind ? { kind: n.kind } : {}),
  ...n.data,
});

/**
 * The old fields rebuilt from the notices (absent when empty), for readers written against plan format 3: a
 * policy's `plan.withoutValue`, `plan.spend.warnings`. `withoutValue` was a list of addresses, `clockSkew` one object.
 */
export function legacyNoticeFields(notices: readonly Notice[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, code] of Object.entries(LEGACY_NOTICE_FIELDS)) {
    const mine = (notices ?? []).filter((n) => n.code === code);
    if (mine.length === 0) continue;
    if (field === 'withoutValue') out[field] = mine.map((n) => n.address);
    else if (field === 'clockSkew') out[field] = mine[0]!.data;
    else out[field] = mine.map(legacyItem);
  }
  return out;
}

/** The spend warnings as plan format 3 had them in `plan.spend.warnings`. */
export const legacySpendWarnings = (notices: readonly Notice[] | undefined) =>
  (notices ?? [])
    .filter((n) => n.code === 'spend')
    .map((n) => ({ code: n.data.warning, address: n.address, message: n.data.detail, ...(n.at ? { at: n.at } : {}) }));
