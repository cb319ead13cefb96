/**
 * Evaluating compiled policies over the planned changes: each policy is run
 * on each change of a kind and action it applies to. A rule that is false is a
 * violation; one that throws or gives something other than a bool is an
 * error, which counts as a violation of the policy's level (a mandatory
 * policy fails closed). Only what is not a pass is kept, with the place of
 * the resource in the configuration for annotations.
 */
import type { ResourceKind, SourceRange } from '../config/index.js';
import type { Action, PolicyFinding, PolicyReport } from '../plan-model/index.js';
import type { Compiled } from './compile.js';

/** One planned change as a rule sees it: configuration terms, never a write-only value. */
export interface PolicyChange {
  action: Action;
  address: string;
  kind: ResourceKind;
  /** What cplane last applied (from state); null on create and import. */
  before: Record<string, unknown> | null;
  /** What the configuration asks for; null on a removal. */
  after: Record<string, unknown> | null;
  at?: SourceRange;
}

/** JSON numbers as CEL sees them: whole numbers are `int` (so `after.n + 1` works), the rest `double`. */
function celValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return value;
}

const firstLine = (text: string) => text.split('\n')[0] ?? text;

/** The actions after which the object is gone (or no longer managed): `after` is null, so a policy judges them only when it lists them. */
const REMOVALS: readonly string[] = ['archive', 'delete', 'revoke', 'forget'];

const appliesTo = (policy: Compiled['policies'][number]['policy'], change: PolicyChange) =>
  (policy.kinds.length === 0 || policy.kinds.includes(change.kind)) && (policy.actions.length > 0 ? policy.actions.includes(change.action) : !REMOVALS.includes(change.action));

/** `now`: the API's clock when the plan is made (the epoch in tests that give none). */
export function evaluatePolicies(compiled: Compiled, changes: readonly PolicyChange[], now: Date = new Date(0)): PolicyReport {
  const findings: PolicyFinding[] = [];
  let checked = 0;
  for (const change of changes) {
    let variables: Record<string, unknown> | undefined;
    for (const { policy, evaluate } of compiled.policies) {
      if (!appliesTo(policy, change)) continue;
      checked++;
      variables ??= { action: change.action, address: change.address, kind: change.kind, before: celValue(change.before), after: celValue(change.after), now };
      let outcome: PolicyFinding['outcome'] | undefined;
      let message = policy.message;
      try {
        const result = evaluate(variables);
        if (result === false) outcome = 'violated';
        else if (result !== true) {
          outcome = 'error';
          message = `it gave ${typeof result === 'bigint' ? 'an int' : typeof result}, not a bool`;
        }
      } catch (error) {
        outcome = 'error';
        message = firstLine(error instanceof Error ? error.message : String(error));
      }
      if (outcome) findings.push({ policy: policy.name, level: policy.level, address: change.address, kind: change.kind, outcome, message, ...(change.at ? { at: change.at } : {}) });
    }
  }
  return { digest: compiled.digest, policies: compiled.policies.length, checked, findings };
}
