/**
 * The addresses an apply of a plan holds for its run (docs/state.md, "Locks"): each step's own address, the
 * addresses it must wait for (`dependsOn`), a `moved` block's old address, the address another entry of a write
 * goes to, and every address whose id a write reads (`$ref`, wherever it is). A step that reads another address's
 * id must not see that address deleted or replaced under it by another apply. The plan's pending writes (an earlier
 * run's, resent first) are held too.
 */
import type { Plan } from './plan.js';
import type { Template } from './write.js';
import { eachPlaceholder, type MalformedPlaceholder, type Placeholder } from './placeholder.js';

/** The address whose id a placeholder reads: a `$ref`'s, or the record a `$encrypt` or `$wrap` is bound to by `$ref`. */
function referencedAddress(placeholder: Placeholder | MalformedPlaceholder): string | undefined {
  if (placeholder.tag === '$ref') return placeholder.address;
  const target = placeholder.tag === '$encrypt' ? placeholder.encrypt : placeholder.tag === '$wrap' ? placeholder.wrap : undefined;
  return typeof target?.record === 'object' ? target.record.$ref : undefined;
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
      // The effects' id and parents may read another address's id too.
      const { id, parents } = write.effects;
      const templates = { path: write.path, body: write.body, id, parents } as Template;
      eachPlaceholder(templates, '', (placeholder) => {
        const address = referencedAddress(placeholder);
        if (address !== undefined) held.add(address);
      });
    }
  }
  return [...held].sort();
}
