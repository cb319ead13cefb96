/**
 * Ordering of plan steps: a stable topological sort (each step after the
 * steps it depends on, otherwise in the order given), and the closure used by
 * `--target` (the targeted steps plus everything they depend on).
 */
import type { PlanStep } from './types.js';

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

/** The steps of the targeted addresses and, transitively, every step they depend on. */
export function targetClosure(steps: PlanStep[], targets: ReadonlySet<string>): PlanStep[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const keep = new Set<string>();
  const visit = (id: string) => {
    if (keep.has(id)) return;
    keep.add(id);
    for (const dep of byId.get(id)?.dependsOn ?? []) visit(dep);
  };
  for (const step of steps) if (targets.has(step.address)) visit(step.id);
  return steps.filter((s) => keep.has(s.id));
}
