/**
 * The planner: refreshes the live account, compares it with the configuration
 * and state, and returns a Plan (plain data, see types.ts) that render/ shows
 * and applier/ performs. Other folders use only what is exported here, but for
 * cli/github-flag.ts, which takes PlanError from errors.ts so that `validate`
 * (which reports through it) does not load the planner.
 */
export { makePlan } from './make-plan.js';
export { configurationGraph } from './dependencies.js';
/** The spend and model stages' cheap first passes, for bench/plan.mjs (their cost when nothing they concern changes). */
export { spendTouched } from './spend.js';
export { checkModels, modelChecks } from './models.js';
export { foreignPendingWrites, pendingWritesOf } from './pending-writes.js';
export { relativeTime } from './reissue.js';
export type { MakePlanInput, PlanState } from './stage-inputs.js';
export type { PlanProblem } from './problems.js';
export { PlanError } from './errors.js';
export type * from '../plan-model/index.js';

export { accessReport, readAccess, type AccessReads, type AccessReportInput } from './access-report.js';
export { designOffboarding, makeOffboardingPlan, unknownUserProblem } from './offboard.js';
