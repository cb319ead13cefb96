/**
 * A graph of addresses as plain data, what `cplane graph` and the plan's Markdown draw: each node an address
 * (with its kind, and in a plan the action of its step), each edge from an address to one that goes first (a
 * resource to what it needs, a step to a step it waits for), as `terraform graph` draws them. The planner makes
 * the configuration's graph; a plan's is read off its steps here, so a renderer only formats one.
 */
import type { Action } from './action.js';
import type { ResourceKind } from './kind.js';
import type { PlanStep } from './plan.js';

export interface AddressNode {
  address: string;
  kind: ResourceKind;
  /** In a plan's graph: the action of the address's step. */
  action?: Action;
}

export interface AddressGraph {
  /** In the order they are drawn: dependency order for a configuration, plan order for a plan. */
  nodes: AddressNode[];
  /** `from` needs `to` (or waits for it): `to` goes first. Both are addresses of `nodes`. */
  edges: { from: string; to: string }[];
}

/** The steps of a plan as a graph: each step kept by `keep` (default: all), and its waits for other kept steps. */
export function stepGraph(steps: readonly PlanStep[], keep: (step: PlanStep) => boolean = () => true): AddressGraph {
  const kept = steps.filter(keep);
  const addresses = new Set(kept.map((s) => s.address));
  return {
    nodes: kept.map((s) => ({ address: s.address, kind: s.kind, action: s.action })),
    edges: kept.flatMap((s) => [...new Set(s.dependsOn)].flatMap((to) => (addresses.has(to) ? [{ from: s.address, to }] : []))),
  };
}
