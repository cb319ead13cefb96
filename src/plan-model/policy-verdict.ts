/**
 * What a plan's policy findings amount to: a mandatory finding (violated, or
 * a rule that failed to evaluate) makes the plan one that fails and that
 * apply refuses; an advisory one is a warning.
 */
import type { Plan, PolicyFinding } from './plan.js';

/** The findings that stop the plan: mandatory ones. */
export function blockingFindings(plan: Pick<Plan, 'policies'>): PolicyFinding[] {
  return (plan.policies?.findings ?? []).filter((f) => f.level === 'mandatory');
}

/** `ADDRESS: POLICY: MESSAGE`, e.g. a token's address, `tokens-expire`, `Tokens must expire within 90 days.` */
export function findingLine(finding: PolicyFinding): string {
  return `${finding.address}: ${finding.policy}: ${finding.outcome === 'error' ? `the rule could not be evaluated: ${finding.message}` : finding.message}`;
}
