/**
 * The planner: refreshes the live account, compares it with the configuration
 * and state, and returns a Plan (plain data, see plan-model/) that render/ shows
 * and applier/ performs. It holds the stages a plan runs (`stages/`: refresh,
 * the address book, desired, removals, dependencies, order, targets) and the
 * checks it makes of the steps (`checks/`: policies, models, spend, values,
 * ends, what is due); what uses a plan (the access report, offboarding) lives in access/. Other folders use only what is exported here, but for
 * cli/report/github-flag.ts, which takes PlanError from errors.ts so that `validate`
 * (which reports through it) does not load the planner.
 */
export { makePlan } from './make-plan.js';
export { configurationGraph } from './stages/dependencies.js';
/** The spend and model stages' cheap first passes, for bench/plan.mjs (their cost when nothing they concern changes). */
export { spendTouched } from './checks/spend.js';
export { checkModels, modelChecks } from './checks/models.js';
export { foreignPendingWrites, pendingWritesOf } from './stages/pending-writes.js';
export { relativeTime } from './stages/reissue.js';
export type { MakePlanInput, PlanState } from './stage-inputs.js';
export type { PlanProblem } from './problems.js';
export { PlanError } from './errors.js';
/** The table of notices: the docs table, and saved plans of format 3 read into notices (saved-plan/format-3.ts). */
export { noticeChecks, noticeOf, type Finding, type NoticeCheck } from './checks/notices.js';
export type * from '../plan-model/index.js';
