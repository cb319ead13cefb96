/**
 * Evaluating compiled policies over the planned changes: each policy is run
 * on each change of a kind and action it applies to. A rule that is false is a
 * violation; one that throws or gives something other than a bool is an
 * error, which counts as a violation of the policy's level (a mandatory
 * policy fails closed). So is a rule that does not finish by its deadline:
 * the rules run in a worker (sandbox.ts), one policy at a time over all its
 * changes, and one that takes longer than its `timeoutMs` (DEFAULT_TIMEOUT_MS
 * when it sets none) is stopped, reported at the change it was on, and the
 * next policy runs in a new worker. All policies of a plan together have
 * PLAN_BUDGET_MS. Only what is not a pass is kept, with the place of the
 * resource in the configuration for annotations.
 */
import type { ResourceKind, SourceRange } from '../config/index.js';
import type { Action, PolicyFinding, PolicyReport } from '../plan-model/index.js';
import { DEFAULT_TIMEOUT_MS, type Compiled } from './compile.js';
import { Sandbox } from './sandbox.js';

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
  /** Usage of the object (a gateway or token whose spend the plan touches): dollars as a number, requests; null when not read or none. */
  usage?: { spend7d: number; requests7d: number } | null;
}

/**
 * What a rule sees of the whole plan: `plan.spend.before|after|delta`, dollars per 30 days (no limit: infinity), and
 * `plan.notices` (planner/checks/notices.ts), with the old names of plan format 3 as aliases (docs/policies.md).
 */
export interface PolicyPlan {
  spend: { before: number; after: number; delta: number };
  notices?: readonly { code: string; severity: string; address: string; kind: string; message: string; data: unknown }[];
  [alias: string]: unknown;
}

const NO_SPEND: PolicyPlan = { spend: { before: 0, after: 0, delta: 0 } };

/** JSON numbers as CEL sees them: whole numbers are `int` (so `after.n + 1` works), the rest `double`. */
export function celValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return value;
}

/** The most time all the policies of one plan may take together, however many there are. */
export const PLAN_BUDGET_MS = 30_000;

/** The actions after which the object is gone (or no longer managed): `after` is null, so a policy judges them only when it lists them. */
const REMOVALS: readonly string[] = ['archive', 'delete', 'revoke', 'forget'];

const appliesTo = (policy: Compiled['policies'][number]['policy'], change: PolicyChange) =>
  (policy.kinds.length === 0 || policy.kinds.includes(change.kind)) &&
  (policy.actions.length > 0 ? policy.actions.includes(change.action) : !REMOVALS.includes(change.action));

/** Starts the worker the rules will run in; a plan starts it early, so that its start-up overlaps the refresh. */
export function openSandbox(compiled: Compiled): Sandbox {
  return new Sandbox(compiled.policies.map(({ policy }) => policy.rule));
}

/**
 * Evaluates every policy over the changes it applies to, in `given` (which is closed at the end) or a new
 * sandbox, within `budgetMs` for all of them together.
 */
export interface EvaluateOptions {
  /** The worker to run in (closed at the end); a new one when not given. */
  sandbox?: Sandbox;
  /** For all the policies together (default PLAN_BUDGET_MS). */
  budgetMs?: number;
  /** What rules see as `plan` (the spend). */
  plan?: PolicyPlan;
  /** The API's clock when the plan is made, which rules see as `now` (the epoch in tests that give none). */
  now?: Date;
}

export async function evaluatePolicies(
  compiled: Compiled,
  changes: readonly PolicyChange[],
  options: EvaluateOptions = {},
): Promise<PolicyReport> {
  const { sandbox: given, budgetMs = PLAN_BUDGET_MS, plan = NO_SPEND, now = new Date(0) } = options;
  // Dollars stay JS numbers, which CEL reads as doubles whatever the amount: `plan.spend.delta <= 500.0`.
  const { spend, ...said } = plan;
  const planValue = { notices: [], ...(celValue(said) as object), spend: { ...spend } };
  const variables = changes.map((change) => ({
    action: change.action,
    address: change.address,
    kind: change.kind,
    before: celValue(change.before),
    after: celValue(change.after),
    plan: planValue,
    usage: change.usage ? { spend7d: change.usage.spend7d, requests7d: BigInt(change.usage.requests7d) } : null,
    now,
  }));
  /** Findings with the change and the policy they are of, so they can be listed change by change. */
  const found: { change: number; policy: number; finding: PolicyFinding }[] = [];
  let checked = 0;
  let sandbox: Sandbox | undefined = given;
  let stored = false;
  const started = performance.now();
  try {
    for (const [p, { policy }] of compiled.policies.entries()) {
      const indices = changes.flatMap((change, i) => (appliesTo(policy, change) ? [i] : []));
      if (indices.length === 0) continue;
      checked += indices.length;
      const finding = (i: number, outcome: PolicyFinding['outcome'], message: string) => {
        const change = changes[indices[i]!]!;
        found.push({
          change: indices[i]!,
          policy: p,
          finding: {
            policy: policy.name,
            level: policy.level,
            address: change.address,
            kind: change.kind,
            outcome,
            message,
            ...(change.at ? { at: change.at } : {}),
          },
        });
      };
      // A stopped rule ended its worker: the next policy gets a new one.
      if (!sandbox?.alive) {
        sandbox = openSandbox(compiled);
        stored = false;
      }
      if (!stored) await sandbox.store(variables);
      stored = true;
      const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const left = Math.max(0, budgetMs - (performance.now() - started));
      const result = await sandbox.run(p, indices, Math.min(timeoutMs, left));
      if (result.finished) {
        for (const [i, outcome, message] of result.outcomes) finding(i, outcome, outcome === 'violated' ? policy.message : message!);
        continue;
      }
      const unchecked = indices.length - result.at - 1;
      const rest = unchecked > 0 ? `; ${unchecked} more change${unchecked === 1 ? ' was' : 's were'} not checked` : '';
      const why = result.reason
        ? `it stopped its evaluator (${result.reason})`
        : timeoutMs <= left
          ? `it did not finish within ${timeoutMs} ms (${policy.timeoutMs === undefined ? 'the default deadline' : 'its timeoutMs'})`
          : `it did not finish within the ${budgetMs} ms all policies of a plan have together`;
      finding(result.at, 'error', `${why}${rest}`);
    }
  } finally {
    await sandbox?.close();
  }
  found.sort((a, b) => a.change - b.change || a.policy - b.policy);
  return { digest: compiled.digest, policies: compiled.policies.length, checked, findings: found.map((f) => f.finding) };
}
