/**
 * The addresses an apply of a plan holds for its run (docs/state.md, "Locks"): each step's own address, the
 * addresses it must wait for (`dependsOn`), a `moved` block's old address, the address another entry of a write
 * goes to, and every address whose id a write reads (`$ref`, wherever it is). A step that reads another address's
 * id must not see that address deleted or replaced under it by another apply.
 */
import type { PlanStep } from './plan.js';

function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') into.add(inner);
      else collectRefs(inner, into);
    }
  }
}

/** The addresses to hold for `steps`, sorted. */
export function addressesToHold(steps: readonly PlanStep[]): string[] {
  const held = new Set<string>();
  for (const step of steps) {
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
