/**
 * Policies (docs/policies.md): the configuration's CEL rules, compiled
 * (compile.ts) and evaluated over a plan's changes (evaluate.ts). This folder
 * decides whether a change is allowed; the planner calls it as its last
 * stage, `cplane validate` compiles with it, and render/ only shows the
 * report it leaves in the plan.
 */
export { compilePolicies, DEFAULT_TIMEOUT_MS, policyDigest, type Compiled, type CompiledPolicy } from './compile.js';
export { MAX_RULE_COST, UNKNOWN_SIZE } from './cost.js';
export { celValue, evaluatePolicies, openSandbox, PLAN_BUDGET_MS, type PolicyChange, type PolicyPlan } from './evaluate.js';
export { Sandbox, type SandboxEnvironment, type ValueResult } from './sandbox.js';
export { compileAutoApprove, AUTO_APPROVE_FIELDS, type AutoApprove } from './auto-approve.js';
export { RULE_VARIABLES } from './rule-variables.js';
