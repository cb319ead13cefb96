/**
 * The targets stage: `--target` (Terraform's meaning) plans only the targeted addresses and what they need;
 * `--exclude` (OpenTofu's meaning, its exact opposite) plans everything but the excluded addresses and what
 * needs them. Both read one relation, "A needs B": what A references or depends on (in a normal plan), the
 * steps A's step must come after, and the children removed with A. So a targeted address with no change of
 * its own still brings in the changes of what it depends on, and objects removed with a targeted parent go
 * with it; an excluded gateway keeps its tokens out too, and in a destroy plan an excluded token keeps the
 * gateway whose removal would revoke it. Problems, drift and unreadable items of addresses out of scope
 * neither block nor show. A pattern may name a module call (`module.payments`) or every instance of a
 * resource (its address without the key): see `addressMatches`.
 */
import type { DesiredResource } from '../../config/types.js';
import { inverse, reachable } from '../../graph/index.js';
import { addressMatches, localPart, type Drift, type Plan, type PlanStep, type Unreadable } from '../../plan-model/index.js';
import type { StateData } from '../../state/types.js';
import { dependenciesOf } from './dependencies.js';
import type { PlanProblem } from '../problems.js';

export interface TargetInput {
  mode: Plan['mode'];
  targets: string[];
  /** `--exclude` patterns; never given together with targets (the commands refuse it). */
  exclude?: string[];
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

export type Scoped = Pick<TargetInput, 'steps' | 'drift' | 'unreadable' | 'problems'> & {
  /** Whether the plan covers the address (false for what --target leaves out and what --exclude takes out). */
  covers(address: string): boolean;
};

export function scopeToTargets(input: TargetInput): Scoped {
  const { targets, exclude = [] } = input;
  if (targets.length === 0 && exclude.length === 0) return { ...input, covers: () => true };
  const known = [...new Set([...input.desiredByAddress.keys(), ...Object.keys(input.state), ...input.steps.map((s) => s.address)])];
  const flag = targets.length > 0 ? '--target' : '--exclude';
  const patterns = targets.length > 0 ? targets : exclude;
  const unknown = patterns.filter((p) => !known.some((a) => addressMatches(a, p))).map((p) => unknownAddress(flag, p, known));
  const named = new Set(known.filter((a) => patterns.some((p) => addressMatches(a, p))));
  const needs = needsOf(input, known);
  let covers: (address: string) => boolean;
  if (targets.length > 0) {
    const inScope = reachable(needs, named);
    covers = (address) => inScope.has(address);
  } else {
    const excluded = reachable(inverse(needs), named);
    covers = (address) => !excluded.has(address);
  }
  const steps = input.steps.filter((s) => covers(s.address));
  const kept = new Set(steps.map((s) => s.address));
  // Drift of a targeted address with no step of its own still shows; with --exclude, all but the excluded do.
  const within = <T extends { address?: string }>(item: T) =>
    item.address !== undefined && (targets.length > 0 ? kept.has(item.address) || named.has(item.address) : covers(item.address));
  return {
    steps,
    drift: input.drift.filter(within),
    unreadable: input.unreadable.filter((u) => u.address === undefined || within(u)),
    problems: [...unknown, ...input.problems.filter((p) => p.address === undefined || covers(p.address))],
    covers,
  };
}

/** "A needs B", for every known address A. */
function needsOf(input: TargetInput, known: readonly string[]): Map<string, Set<string>> {
  const stepOf = new Map(input.steps.map((s) => [s.address, s]));
  const needs = new Map<string, Set<string>>(known.map((a) => [a, new Set()]));
  const nodeOf = (address: string) => needs.get(address) ?? needs.set(address, new Set()).get(address)!;
  const add = (from: string, to: string) => {
    nodeOf(from).add(to);
    nodeOf(to);
  };
  for (const address of known) {
    const r = input.desiredByAddress.get(address);
    // A removal does not need what its object used; a planned object needs what it references.
    if (r && input.mode !== 'destroy') for (const dep of dependenciesOf(r)) add(address, dep);
  }
  for (const step of input.steps) {
    for (const dep of step.dependsOn) {
      const other = stepOf.get(dep);
      if (other) add(step.address, other.address);
    }
  }
  for (const [child, parent] of input.removedWith) add(parent, child);
  return needs;
}

function unknownAddress(flag: '--target' | '--exclude', pattern: string, addresses: string[]): PlanProblem {
  const close = addresses.filter((a) => a.includes(pattern) || pattern.includes(a) || localPart(a) === localPart(pattern)).slice(0, 3);
  return {
    severity: 'error',
    code: flag === '--target' ? 'unknown_target' : 'unknown_exclude',
    summary: `${flag} ${pattern}: no such address in the configuration or state`,
    ...(close.length ? { detail: `Did you mean ${close.join(', ')}?` } : {}),
  };
}
