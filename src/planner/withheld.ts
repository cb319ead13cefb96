/**
 * The class filter of `cplane reconcile` (make-plan.ts): the steps of classes it may not apply are withheld,
 * and so is every step that must come after a withheld one (its `dependsOn`, as the applier would skip a
 * step whose dependency failed), each naming what it needs. A step that only references a withheld address
 * without waiting for a step of it (a token renewed while its gateway's description waits) goes ahead.
 */
import type { PlanStep, StepClass, WithheldStep } from '../plan-model/index.js';

/** `sorted`: each step after the steps it depends on. */
export function withholdByClass(sorted: readonly PlanStep[], classes: readonly StepClass[]): { steps: PlanStep[]; withheld: WithheldStep[] } {
  const withheldAddresses = new Set<string>();
  const steps: PlanStep[] = [];
  const withheld: WithheldStep[] = [];
  for (const step of sorted) {
    const stepClass = step.class ?? 'change';
    const needs = step.dependsOn.filter((address) => withheldAddresses.has(address));
    if (classes.includes(stepClass) && needs.length === 0) {
      steps.push(step);
      continue;
    }
    withheldAddresses.add(step.address);
    withheld.push({ address: step.address, kind: step.kind, action: step.action, class: stepClass, ...(step.reason ? { reason: step.reason } : {}), ...(classes.includes(stepClass) ? { needs } : {}) });
  }
  return { steps, withheld };
}
