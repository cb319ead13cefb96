/**
 * Ordering of plan steps: a stable topological sort (each step after the
 * steps it depends on, otherwise in the order given).
 */
import type { PlanStep } from '../plan-model/index.js';

/** Sorts steps so that each comes after its dependencies; among ready steps the earlier one in `steps` goes first. */
export function sortSteps(steps: PlanStep[]): PlanStep[] {
  const position = new Map(steps.map((s, i) => [s.id, i]));
  const waiting = new Map(steps.map((s) => [s.id, new Set(s.dependsOn.filter((d) => position.has(d)))]));
  const dependents = new Map<string, string[]>();
  for (const step of steps) for (const dep of waiting.get(step.id) ?? []) dependents.set(dep, [...(dependents.get(dep) ?? []), step.id]);
  const ready = steps.filter((s) => waiting.get(s.id)?.size === 0).map((s) => s.id);
  const out: PlanStep[] = [];
  const byId = new Map(steps.map((s) => [s.id, s]));
  while (ready.length > 0) {
    ready.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    const id = ready.shift() as string;
    out.push(byId.get(id) as PlanStep);
    for (const next of dependents.get(id) ?? []) {
      const deps = waiting.get(next);
      deps?.delete(id);
      if (deps?.size === 0) ready.push(next);
    }
  }
  if (out.length !== steps.length) {
    const stuck = steps.filter((s) => !out.includes(s)).map((s) => s.id);
    throw new Error(`plan steps depend on each other in a cycle: ${stuck.join(', ')}`);
  }
  return out;
}
