/**
 * The dependencies stage: which step waits for which. A step of a configured
 * address waits for the steps of what it references (except removals, and unless it is a removal); an
 * object removed with its parent waits for the parent's removal; a removed
 * object goes after every step of an object that used it (dependents first); steps of kinds that touch the same
 * principal wait for each other as their kinds declare (principals.ts).
 * Returns new steps; the input is left as it was.
 */
import type { DesiredResource } from '../../config/types.js';
import { isRemoval, type AddressGraph, type Plan, type PlanStep } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { StateData } from '../../state/types.js';
import type { AddressBook } from './address-book.js';
import { orderDesired } from './desired.js';
import { principalEdges } from './principals.js';

export interface DependencyInput {
  mode: Plan['mode'];
  steps: PlanStep[];
  desiredByAddress: ReadonlyMap<string, DesiredResource>;
  state: StateData['resources'];
  book: AddressBook;
  /** Address -> the parent address it is removed with (removals stage). */
  removedWith: ReadonlyMap<string, string>;
}

/** What a configured resource needs to exist first: its explicit `dependsOn` and what its attributes refer to (parents and references). */
export function dependenciesOf(r: DesiredResource): string[] {
  return [...r.dependsOn, ...definitionOf(r.kind).references({ attributes: r.attributes })];
}

/**
 * The configuration's dependency graph, offline (`cplane graph`): each resource in the order a plan's steps take
 * (dependencies first), an edge to each declared resource it needs, as the steps of a normal plan wait for each other.
 */
export function configurationGraph(desired: DesiredResource[]): AddressGraph {
  const resources = orderDesired(desired);
  const declared = new Set(resources.map((r) => r.address));
  return {
    nodes: resources.map((r) => ({ address: r.address, kind: r.kind })),
    edges: resources.flatMap((r) =>
      [...new Set(dependenciesOf(r))].filter((to) => to !== r.address && declared.has(to)).map((to) => ({ from: r.address, to })),
    ),
  };
}

export function linkDependencies(input: DependencyInput): PlanStep[] {
  const steps = input.steps.map((s) => ({ ...s, dependsOn: [...s.dependsOn] }));
  const stepOf = new Map(steps.map((s) => [s.address, s]));
  for (const step of steps) {
    const r = input.desiredByAddress.get(step.address);
    const deps = new Set<string>();
    // A configured address that is removed (a grant past its `until`) waits for nothing it refers to: ending access
    // never waits for its record's rotation, which a reconcile may withhold (a reader key the API chose).
    if (r && input.mode !== 'destroy' && !isRemoval(step.action)) {
      for (const address of dependenciesOf(r)) {
        const dep = stepOf.get(address);
        if (dep && dep !== step && !isRemoval(dep.action)) deps.add(dep.address);
      }
    }
    const parent = stepOf.get(input.removedWith.get(step.address) ?? '');
    if (parent) deps.add(parent.address);
    step.dependsOn = [...deps];
  }
  // Only a removal waits for its dependents: without one, the pass over every address in state finds nothing.
  const removing = steps.some((s) => isRemoval(s.action));
  for (const address of removing ? Object.keys(input.state) : []) {
    const dependent = stepOf.get(address);
    if (!dependent) continue;
    for (const dep of previousDependencies(input, address)) {
      const removal = stepOf.get(dep);
      if (!removal || !isRemoval(removal.action) || dependent.dependsOn.includes(removal.address)) continue;
      if (!removal.dependsOn.includes(dependent.address)) removal.dependsOn.push(dependent.address);
    }
  }
  const attributesOf = (address: string) => input.desiredByAddress.get(address)?.attributes ?? input.state[address]?.inputs;
  for (const { from, to } of principalEdges(steps, attributesOf)) {
    const [waiting, first] = [stepOf.get(from)!, stepOf.get(to)!];
    if (!waiting.dependsOn.includes(to) && !first.dependsOn.includes(from)) waiting.dependsOn.push(to);
  }
  return steps;
}

/** What an address in state depended on when it was last applied: its references and its parents. */
export function previousDependencies(input: Pick<DependencyInput, 'state' | 'book'>, address: string): string[] {
  const entry = input.state[address];
  if (!entry) return [];
  const definition = definitionOf(entry.kind);
  const deps = new Set(definition.references({ attributes: entry.inputs }).filter((a) => a in input.state));
  for (const [idField, id] of Object.entries(entry.parents ?? {})) {
    const parentKind = definition.relations.parentIds?.[idField];
    const parent = parentKind && input.book.stateAddressOf(parentKind, id);
    if (parent) deps.add(parent);
  }
  deps.delete(address);
  return [...deps];
}
