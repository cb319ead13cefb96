/**
 * The targets stage (`--target`, with Terraform's meaning): only the targeted
 * addresses and what they depend on are planned. A targeted address with no
 * change of its own still brings in the changes of what it depends on;
 * objects removed with a targeted parent go with it; problems, drift and
 * unreadable items of addresses out of scope neither block nor show.
 */
import type { DesiredResource } from '../config/types.js';
import { localPart, type Drift, type Plan, type PlanStep, type Unreadable } from '../plan-model/index.js';
import { providerFor } from '../providers/index.js';
import type { StateData } from '../state/types.js';
import type { PlanProblem } from './problems.js';

export interface TargetInput {
  mode: Plan['mode'];
  targets: string[];
  /** Sorted: each step after the steps it depends on. */
  steps: PlanStep[];
  drift: Drift[];
  unreadable: Unreadable[];
  problems: PlanProblem[];
  desiredByAddress: ReadonlyMap<string, DesiredResource>;
  state: StateData['resources'];
  /** Address -> the parent address it is removed with (removals stage). */
  removedWith: ReadonlyMap<string, string>;
}

export type Scoped = Pick<TargetInput, 'steps' | 'drift' | 'unreadable' | 'problems'>;

export function scopeToTargets(input: TargetInput): Scoped {
  const { targets } = input;
  if (targets.length === 0) return input;
  const known = [...input.desiredByAddress.keys(), ...Object.keys(input.state)];
  const unknown = targets.filter((t) => !known.includes(t)).map((t) => unknownTarget(t, known));
  const inScope = addressesInScope(input);
  const steps = input.steps.filter((s) => inScope.has(s.address));
  const kept = new Set(steps.map((s) => s.address));
  const within = <T extends { address?: string }>(item: T) => item.address !== undefined && (kept.has(item.address) || targets.includes(item.address));
  return {
    steps,
    drift: input.drift.filter(within),
    unreadable: input.unreadable.filter((u) => u.address === undefined || within(u)),
    problems: [...unknown, ...input.problems.filter((p) => p.address === undefined || inScope.has(p.address))],
  };
}

/** The targets, what they depend on (configured references, and the dependencies of their steps), and what goes with them. */
function addressesInScope(input: TargetInput): Set<string> {
  const stepOf = new Map(input.steps.map((s) => [s.id, s]));
  const scope = new Set<string>();
  const visit = (address: string) => {
    if (scope.has(address)) return;
    scope.add(address);
    const r = input.desiredByAddress.get(address);
    // A removal does not need what its object used; a planned object needs what it references.
    if (r && input.mode !== 'destroy') for (const dep of [...r.dependsOn, ...providerFor(r.kind).references({ attributes: r.attributes })]) visit(dep);
    for (const dep of input.steps.find((s) => s.address === address)?.dependsOn ?? []) {
      const step = stepOf.get(dep);
      if (step) visit(step.address);
    }
    for (const [child, parent] of input.removedWith) if (parent === address) visit(child);
  };
  for (const target of input.targets) visit(target);
  return scope;
}

function unknownTarget(target: string, addresses: string[]): PlanProblem {
  const close = [...new Set(addresses)].filter((a) => a.includes(target) || target.includes(a) || localPart(a) === localPart(target)).slice(0, 3);
  return {
    severity: 'error',
    code: 'unknown_target',
    summary: `--target ${target}: no such address in the configuration or state`,
    ...(close.length ? { detail: `Did you mean ${close.join(', ')}?` } : {}),
  };
}
