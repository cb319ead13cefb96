/**
 * One deployment's line of `plan --all` and `apply --all` (docs/deployments.md): what its plan amounts to, as
 * plain numbers, or why there is no plan. The matrix shows these; a deployment's `autoApprove` rule reads the
 * same numbers as `plan.add`, `plan.change`, ... (policy/auto-approve.ts).
 */
import { hasChanges, isIncomplete } from './completeness.js';
import { blockingFindings } from './policy-verdict.js';
import type { Plan } from './plan.js';

/** What a plan does, counted: what a deployment's `autoApprove` rule sees as `plan`. */
export interface PlanCounts {
  add: number;
  change: number;
  replace: number;
  remove: number;
  /** Policy findings (mandatory and advisory) that are not a pass. */
  policyViolations: number;
  /** What could not be read: the plan covers only the rest. */
  incomplete: number;
}

export interface DeploymentSummary extends PlanCounts {
  /** Objects adopted (`import` blocks, a deployment export adopted): the matrix has a column for them when any row has one. */
  import: number;
  /** Addresses renamed by `moved` blocks: the matrix has a column for them when any row has one. */
  move: number;
  deployment: string;
  account: string;
  /** The account's name, when the token may list accounts. */
  accountName: string | null;
  /** A mandatory policy finding: the plan is refused. */
  blocked: boolean;
  /** Whether applying it would change anything. */
  changes: boolean;
  /** Why there is no plan (the first line of the error); the numbers are then 0. */
  error?: string;
}

export function deploymentSummary(deployment: string, plan: Plan): DeploymentSummary {
  return {
    deployment,
    account: plan.account,
    accountName: plan.origin?.accountName ?? null,
    add: plan.summary.add,
    change: plan.summary.change,
    replace: plan.summary.replace,
    remove: plan.summary.remove,
    import: plan.summary.import,
    move: plan.summary.move,
    policyViolations: plan.policies?.findings.length ?? 0,
    incomplete: isIncomplete(plan) ? plan.unreadable.length : 0,
    blocked: blockingFindings(plan).length > 0,
    changes: hasChanges(plan),
  };
}

export function failedDeploymentSummary(deployment: string, account: string, error: string): DeploymentSummary {
  return {
    deployment,
    account,
    accountName: null,
    add: 0,
    change: 0,
    replace: 0,
    remove: 0,
    import: 0,
    move: 0,
    policyViolations: 0,
    incomplete: 0,
    blocked: false,
    changes: false,
    error,
  };
}
