/**
 * A grant of a record that will hold no value is a plan problem, not an apply failure: a grant writes the
 * record's data key wrapped for its reader (`$wrap`), and a record without a value has no data key, so the
 * API write could never be made (an exported folder applied to a new account: its records are created empty).
 * Found from the plan itself (the steps' `$wrap` placeholders and the records `withoutValue` lists), so no
 * kind is named here.
 */
import type { DesiredResource } from '../../config/types.js';
import { wrapsOf, type PlanStep } from '../../plan-model/index.js';
import { problemAt, type PlanProblem } from '../problems.js';

export function grantsWithoutValue(
  steps: readonly PlanStep[],
  withoutValue: readonly string[],
  byAddress: ReadonlyMap<string, DesiredResource>,
  idOf: (address: string) => string | undefined,
): PlanProblem[] {
  const wrapping = steps.map((step) => ({ step, wraps: wrapsOf(step) })).filter(({ wraps }) => wraps.length > 0);
  // A plan with no grant to write checks nothing: indexing the records without a value (every record of a folder
  // whose values are not managed, 9,000 in bench/plan.mjs) would be wasted.
  if (withoutValue.length === 0 || wrapping.length === 0) return [];
  const empty = new Map<string, string>();
  for (const address of withoutValue) {
    empty.set(address, address);
    const id = idOf(address);
    if (id) empty.set(id, address);
  }
  const problems: PlanProblem[] = [];
  for (const { step, wraps } of wrapping) {
    const records = new Set<string>();
    for (const { record } of wraps) {
      const address = empty.get(typeof record === 'string' ? record : record.$ref);
      if (address) records.add(address);
    }
    for (const record of records) {
      const desired = byAddress.get(record);
      problems.push(
        problemAt(step.address, byAddress.get(step.address)?.source ?? desired?.source, {
          code: 'grant_without_value',
          summary: `grants ${record}, which will hold no value: a grant gives the reader the record's data key, and a record without a value has none`,
          detail: `Give ${record} a value in the configuration${desired ? ` (${desired.source.file}:${desired.source.line})` : ''}: \`value: { env: NAME }\`, \`value: { file: PATH }\` or \`generate: …\` (docs/configuration.md), or remove the grant until it has one.`,
        }),
      );
    }
  }
  return problems;
}
