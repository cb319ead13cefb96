/**
 * Ordering of plan steps: a stable topological sort (each step after the
 * steps it depends on, otherwise in the order given).
 */
import { topologicalOrder } from '../../graph/index.js';
import type { PlanStep } from '../../plan-model/index.js';

/** Sorts steps so that each comes after its dependencies; among ready steps the earlier one in `steps` goes first. */
export function sortSteps(steps: PlanStep[]): PlanStep[] {
  const byAddress = new Map(steps.map((s) => [s.address, s]));
  const { order, stuck } = topologicalOrder(new Map(steps.map((s) => [s.address, s.dependsOn])));
  if (stuck.length > 0) throw new Error(`plan steps depend on each other in a cycle: ${stuck.join(', ')}`);
  return order.map((address) => byAddress.get(address)!);
}
