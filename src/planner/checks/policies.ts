/**
 * The policies stage: the configuration's policies are compiled before the
 * plan reads anything, and checked as its last stage against every change
 * it makes (src/policy/ compiles and evaluates them). A
 * rule sees the change in configuration terms: `after` is what the
 * configuration asks for, `before` what cplane last applied (state inputs),
 * and neither ever holds a write-only value (those are kept apart as secret
 * sources). A rule that does not compile is a problem of the plan, at the
 * rule's line.
 */
import type { DesiredResource, DesiredState } from '../../config/types.js';
import { isRemoval, legacyNoticeFields, type Notice, type PlanSpend, type PlanStep, type PolicyReport } from '../../plan-model/index.js';
import { compilePolicies, evaluatePolicies, type Compiled, type PolicyChange, type PolicyPlan, type Sandbox } from '../../policy/index.js';
import type { StateData } from '../../state/types.js';
import { PlanError } from '../errors.js';

/** What cplane last applied, without the bookkeeping state keeps beside it. */
function applied(inputs: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (!inputs) return null;
  const { lifecycle: _lifecycle, ...rest } = inputs;
  return rest;
}

/** Dollars for a rule: a number; no limit is infinity (so `plan.spend.after <= 5000.0` is false for it). */
const dollars = (usd: string | null): number => (usd === null ? Infinity : Number(usd));

/**
 * The plan as rules see it: its spend (zero when it touches none) and its notices (`plan.notices`, each with `code`,
 * `severity`, `address`, `message`, `data`), with the fields of plan format 3 (`plan.withoutValue`, `plan.due`…) as
 * aliases for rules written against them.
 */
export function policyPlan(spend: PlanSpend | undefined, notices: readonly Notice[] = []): PolicyPlan {
  const said = {
    notices: notices.map(({ code, severity, address, kind, message, data }) => ({
      code,
      severity,
      address: address ?? '',
      kind: kind ?? '',
      message,
      data,
    })),
    ...legacyNoticeFields(notices),
  };
  if (!spend) return { spend: { before: 0, after: 0, delta: 0 }, ...said };
  const [before, after] = [dollars(spend.before), dollars(spend.after)];
  // Unlimited on both sides is no change; on one side only, an infinite step up or down.
  const delta = spend.delta !== null ? Number(spend.delta) : before === after ? 0 : after - before;
  return { spend: { before, after, delta }, ...said };
}

/** Each gateway's and token's usage by address, as rules see it (`usage.spend7d`, `usage.requests7d`). */
function usageByAddress(spend: PlanSpend | undefined): Map<string, { spend7d: number; requests7d: number }> {
  const out = new Map<string, { spend7d: number; requests7d: number }>();
  for (const entry of spend?.gateways.flatMap((g) => [g, ...g.tokens]) ?? []) {
    if (entry.usage) out.set(entry.address, { spend7d: Number(entry.usage.spend7d), requests7d: entry.usage.requests7d });
  }
  return out;
}

export function policyChanges(
  steps: readonly PlanStep[],
  desiredByAddress: ReadonlyMap<string, DesiredResource>,
  state: StateData['resources'],
  spend?: PlanSpend,
): PolicyChange[] {
  const usage = usageByAddress(spend);
  return steps
    .filter((step) => step.action !== 'no-op')
    .map((step) => {
      const desired = desiredByAddress.get(step.address);
      const removing = isRemoval(step.action) || step.action === 'forget';
      const before = step.action === 'create' || step.action === 'import' ? null : applied(state[step.address]?.inputs);
      // Not copied: evaluate.ts turns it into CEL values (a copy) before any rule sees it.
      const after = removing || !desired ? null : (desired.attributes as unknown as Record<string, unknown>);
      const used = usage.get(step.address);
      return {
        action: step.action,
        address: step.address,
        kind: step.kind,
        before,
        after,
        ...(used ? { usage: used } : {}),
        ...(desired ? { at: desired.source } : {}),
      };
    });
}

/** The configuration's policies compiled, before anything is read: a rule that does not compile fails the plan at once. */
export async function compileConfigured(desired: DesiredState): Promise<Compiled | undefined> {
  if (!desired.policies?.length) return undefined;
  const compiled = await compilePolicies(desired.policies);
  if (compiled.diagnostics.length > 0) throw new PlanError(compiled.diagnostics);
  return compiled;
}

export async function checkPolicies(
  compiled: Compiled | undefined,
  /** The worker started with the plan (policy/ `openSandbox`), which this closes. */
  sandbox: Sandbox | undefined,
  steps: readonly PlanStep[],
  desiredByAddress: ReadonlyMap<string, DesiredResource>,
  /** State under the plan's addresses (after moved blocks). */
  state: StateData['resources'],
  spend: PlanSpend | undefined,
  notices: readonly Notice[],
  /** The API's clock, which rules see as `now`. */
  now: Date,
): Promise<PolicyReport | undefined> {
  return (
    compiled &&
    (await evaluatePolicies(compiled, policyChanges(steps, desiredByAddress, state, spend), {
      sandbox,
      plan: policyPlan(spend, notices),
      now,
    }))
  );
}
