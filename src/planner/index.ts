/**
 * The planner: refreshes the live account, compares it with the configuration
 * and state, and returns a Plan (plain data, see types.ts) that render/ shows
 * and applier/ performs. Other folders use only what is exported here.
 */
import type { Plan } from './types.js';

export { makePlan } from './make-plan.js';
export type { MakePlanInput, PlanState } from './context.js';
export type { PlanProblem } from './problems.js';
export { PlanError } from './errors.js';
export { readPlanFile, writePlanFile, planSchemaProblems } from './plan-file.js';
export { placeholderProblems, stepDifferences, withSavedKeys } from './plan-trust.js';
export { changedFiles, isStateUrl, plannedFiles, recordedStatePath, relativePosix, withoutCredentials } from './plan-context.js';
export type * from './types.js';

/** Whether applying the plan would change anything (in state or live). */
export function hasChanges(plan: Plan): boolean {
  return plan.steps.some((s) => s.action !== 'no-op') || (plan.mode === 'refresh-only' && plan.drift.length > 0);
}
