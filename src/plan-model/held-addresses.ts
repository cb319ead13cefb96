/**
 * The addresses an apply of a plan holds for its run (docs/state.md, "Locks"): each step's own address, the
 * addresses it must wait for (`dependsOn`), a `moved` block's old address, the address another entry of a write
 * goes to, and every address whose id a write reads (`$ref`, wherever it is). A step that reads another address's
 * id must not see that address deleted or replaced under it by another apply. The plan's pending writes (an earlier
 * run's, resent first) are held too.
 */
import type { Plan } from './plan.js';

function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') into.add(inner);
      else collectRefs(inner, into);
    }
  }
}

/** The addresses to hold for applying `plan`, sorted. */
export function addressesToHold(plan: Pick<Plan, 'steps' | 'pendingWrites'>): string[] {
  const held = new Set<string>((plan.pendingWrites ?? []).map((p) => p.address));
  for (const step of plan.steps) {
    held.add(step.address);
    for (const address of step.dependsOn) held.add(address);
    if (step.moved) held.add(step.moved.from);
    for (const write of step.writes) {
      if (write.address) held.add(write.address);
      collectRefs([write.path, write.body, write.effects], held);
    }
  }
  return [...held].sort();
}
