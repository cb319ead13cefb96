/**
 * Plans of format 3 (cplane before notices) had a top-level field per kind of notice (`withoutValue`, `superseded`,
 * `endingSoon`, `notVerifiable`, `notChecked`, `due`, `clockSkew`) and the spend warnings in `spend.warnings`. Such a
 * saved plan still loads: its fields are read into `notices` with the words of today's checks. Its MAC stays the
 * one of the document as written (`writtenForm`).
 */
import { LEGACY_NOTICE_FIELDS, type Notice, type Plan } from '../plan-model/index.js';
import { noticeChecks, noticeOf, type Finding } from '../planner/index.js';

type Item = Record<string, unknown>;

/** The findings of one old field, as the checks of today would have made them. */
function findingsOf(field: string, value: unknown): Finding<Item>[] {
  if (field === 'withoutValue') return (value as string[]).map((address) => ({ address, data: {} }));
  if (field === 'clockSkew') return [{ data: value as Item }];
  return (value as Item[]).map(({ address, kind, ...data }) => ({
    ...(typeof address === 'string' ? { address } : {}),
    ...(typeof kind === 'string' ? { kind: kind as Notice['kind'] } : {}),
    data,
  }));
}

/** A plan of format 3 as one of today's format (its old fields gone, their notices in the checks' order). */
export function fromFormat3(document: Item): Plan {
  const { spend, ...rest } = document as Item & {
    spend?: Item & { warnings?: { code: string; address: string; message: string; at?: unknown }[] };
  };
  const byCode = new Map<string, Finding<Item>[]>();
  for (const [field, code] of Object.entries(LEGACY_NOTICE_FIELDS)) {
    if (rest[field] !== undefined) byCode.set(code, findingsOf(field, rest[field]));
    delete rest[field];
  }
  const { warnings = [], ...spendRest } = spend ?? {};
  byCode.set(
    'spend',
    warnings.map((w) => ({
      address: w.address,
      ...(w.at ? { at: w.at as Notice['at'] } : {}),
      data: { warning: w.code, detail: w.message },
    })),
  );
  const notices = noticeChecks.flatMap((entry) => (byCode.get(entry.code) ?? []).map((found) => noticeOf(entry, found)));
  return { ...(rest as unknown as Plan), ...(spend ? { spend: spendRest as unknown as Plan['spend'] } : {}), notices };
}
