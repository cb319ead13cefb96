/**
 * Order between steps of kinds that touch the same principal, from what each kind declares it does to users,
 * groups and Service Accounts (`touches` of its configuration block, config/blocks/kind-block.ts): no kind names another.
 * A step that takes a principal away (the object of a kind that `removes` it, or the removal of one that `creates`
 * it) waits for every step that grants that principal access, so a role or a share is revoked (or forgotten) before
 * its group is deleted; a step that grants waits for the step that creates the principal. The load refuses a
 * configuration that both grants on a principal and removes it (build-desired.ts `checkPrincipals`); these edges
 * order what a plan may still hold of both, such as a role that leaves the configuration in the run that deletes its group.
 */
import type { Touch } from '../../config/blocks/kind-block.js';
import { isRemoval, type PlanStep, type ResourceKind } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';

/** `from` waits for `to`. */
export interface PrincipalEdge {
  from: string;
  to: string;
}

/** What a step does to a principal: gives it access, makes it, or takes it away. */
type Use = 'grants' | 'creates' | 'takes away';

/**
 * The edges between `steps`. `attributesOf` gives an address's attributes (configured, or as state last recorded
 * them for one that leaves); `touchesOf` a kind's declarations (the registry's, or a test's kinds beside them).
 */
export function principalEdges(
  steps: readonly PlanStep[],
  attributesOf: (address: string) => Readonly<Record<string, unknown>> | undefined,
  touchesOf: (kind: ResourceKind) => readonly Touch[] = (kind) => definitionOf(kind).config.touches ?? [],
): PrincipalEdge[] {
  const touchesByKind = new Map<ResourceKind, readonly Touch[]>();
  const touchesOfStep = (step: PlanStep) => {
    let touches = touchesByKind.get(step.kind);
    if (!touches) touchesByKind.set(step.kind, (touches = touchesOf(step.kind)));
    return touches;
  };
  // Only a kind that creates or removes a principal orders anything: most plans (every kind of today's registry only grants) have none.
  if (!steps.some((step) => touchesOfStep(step).some((t) => t.as !== 'grants'))) return [];
  const byPrincipal = new Map<string, { address: string; use: Use }[]>();
  for (const step of steps) {
    for (const touch of touchesOfStep(step)) {
      const name = attributesOf(step.address)?.[touch.attribute];
      if (typeof name !== 'string') continue;
      // A deletion that leaves the configuration (removed, or forgotten) is no longer done: it takes nothing away.
      if (touch.as === 'removes' && (isRemoval(step.action) || step.action === 'forget')) continue;
      const use: Use = touch.as === 'removes' || (touch.as === 'creates' && isRemoval(step.action)) ? 'takes away' : touch.as;
      const key = `${touch.principal} ${name}`;
      const uses = byPrincipal.get(key);
      if (uses) uses.push({ address: step.address, use });
      else byPrincipal.set(key, [{ address: step.address, use }]);
    }
  }
  const edges: PrincipalEdge[] = [];
  for (const uses of byPrincipal.values()) {
    const of = (use: Use) => uses.filter((u) => u.use === use).map((u) => u.address);
    for (const from of of('takes away')) for (const to of of('grants')) edges.push({ from, to });
    for (const from of of('grants')) for (const to of of('creates')) edges.push({ from, to });
  }
  return edges;
}
