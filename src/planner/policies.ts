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
import type { DesiredResource, DesiredState } from '../config/types.js';
import { isRemoval, type PlanStep, type PolicyReport } from '../plan-model/index.js';
import { compilePolicies, evaluatePolicies, type Compiled, type PolicyChange } from '../policy/index.js';
import type { StateData } from '../state/types.js';
import { PlanError } from './errors.js';

/** What cplane last applied, without the bookkeeping state keeps beside it. */
function applied(inputs: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (!inputs) return null;
  const { lifecycle: _lifecycle, ...rest } = inputs;
  return rest;
}

export function policyChanges(steps: readonly PlanStep[], desiredByAddress: ReadonlyMap<string, DesiredResource>, state: StateData['resources']): PolicyChange[] {
  return steps
    .filter((step) => step.action !== 'no-op')
    .map((step) => {
      const desired = desiredByAddress.get(step.address);
      const removing = isRemoval(step.action) || step.action === 'forget';
      const before = step.action === 'create' || step.action === 'import' ? null : applied(state[step.address]?.inputs);
      // Not copied: evaluate.ts turns it into CEL values (a copy) before any rule sees it.
      const after = removing || !desired ? null : (desired.attributes as unknown as Record<string, unknown>);
      return { action: step.action, address: step.address, kind: step.kind, before, after, ...(desired ? { at: desired.source } : {}) };
    });
}

/** The configuration's policies compiled, before anything is read: a rule that does not compile fails the plan at once. */
export async function compileConfigured(desired: DesiredState): Promise<Compiled | undefined> {
  if (!desired.policies?.length) return undefined;
  const compiled = await compilePolicies(desired.policies);
  if (compiled.diagnostics.length > 0) throw new PlanError(compiled.diagnostics);
  return compiled;
}

export function checkPolicies(
  compiled: Compiled | undefined,
  steps: readonly PlanStep[],
  desiredByAddress: ReadonlyMap<string, DesiredResource>,
  /** State under the plan's addresses (after moved blocks). */
  state: StateData['resources'],
  /** The API's clock, which rules see as `now`. */
  now: Date,
): PolicyReport | undefined {
  return compiled && evaluatePolicies(compiled, policyChanges(steps, desiredByAddress, state), now);
}
