/**
 * The class filter of `cplane reconcile` (make-plan.ts): the steps of classes it may not apply are withheld,
 * and so is every step that must come after a withheld one (its `dependsOn`, as the applier would skip a
 * step whose dependency failed), each naming what it needs. A step that only references a withheld address
 * without waiting for a step of it (a token renewed while its gateway's description waits) goes ahead. A step
 * that wraps for a key the API chose (cause `reader-key-offered`, offered-keys.ts) is withheld whatever the classes.
 */
import { wrapsForOfferedKey, type PlanStep, type StepClass, type WithheldStep } from '../../plan-model/index.js';

const OFFERED = 'wraps for a reader key the API offers, which neither state nor a pin vouches for: only a person applies this';

/** `sorted`: each step after the steps it depends on. */
export function withholdByClass(
  sorted: readonly PlanStep[],
  classes: readonly StepClass[],
): { steps: PlanStep[]; withheld: WithheldStep[] } {
  const withheldAddresses = new Set<string>();
  const steps: PlanStep[] = [];
  const withheld: WithheldStep[] = [];
  for (const step of sorted) {
    const stepClass = step.class ?? 'change';
    const needs = step.dependsOn.filter((address) => withheldAddresses.has(address));
    // A key the API chose is never wrapped for unreviewed, whatever reconcile.autoApply allows.
    const offered = wrapsForOfferedKey(step);
    if (classes.includes(stepClass) && needs.length === 0 && !offered) {
      steps.push(step);
      continue;
    }
    withheldAddresses.add(step.address);
    const reason = step.reason ?? (offered ? OFFERED : undefined);
    withheld.push({
      address: step.address,
      kind: step.kind,
      action: step.action,
      class: stepClass,
      ...(reason ? { reason } : {}),
      ...(classes.includes(stepClass) && !offered ? { needs } : {}),
    });
  }
  return { steps, withheld };
}
