/**
 * The plan model: the plain data a plan is made of (steps, writes, field
 * changes, drift) with its small predicates and address helpers. It sits on
 * the ground floor with src/errors.ts: config/, state/, providers/, planner/,
 * applier/ and render/ import it, and it imports only types from api/.
 */
export * from './action.js';
export * from './address.js';
export * from './address-graph.js';
export * from './held-addresses.js';
export * from './completeness.js';
export * from './deployment-summary.js';
export * from './policy-verdict.js';
export * from './placeholder.js';
export * from './reader-changes.js';
export type * from './kind.js';
export type * from './plan.js';
export * from './notice.js';
export { PLAN_FORMAT_VERSION } from './plan.js';
export type * from './write.js';
export { VALUE_VERSION_INPUT } from './write.js';
export type * from './access-report.js';
