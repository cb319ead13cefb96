/** Reachability: what a node reaches (its descendants), what reaches it (its ancestors). */
import { edgesOf, inverse, type Graph } from './graph.js';

export interface ReachOptions<N> {
  /** Whether the walk enters a node (default: every node); a node not entered is not reached, nor what lies beyond it. */
  enter?: (node: N) => boolean;
}

/** `starts` (those that are nodes of the graph) and every node reached from them along edges, in the order found. */
export function reachable<N>(graph: Graph<N>, starts: Iterable<N>, options: ReachOptions<N> = {}): Set<N> {
  const enter = options.enter ?? (() => true);
  const seen = new Set<N>();
  const stack = [...starts].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node) || !graph.has(node) || !enter(node)) continue;
    seen.add(node);
    stack.push(...edgesOf(graph, node).reverse());
  }
  return seen;
}

/** Every node `node` reaches, itself aside unless it is on a cycle (in a dependency graph: everything it needs). */
export function descendants<N>(graph: Graph<N>, node: N): Set<N> {
  return reachable(graph, edgesOf(graph, node));
}

/** Every node that reaches `node`, itself aside unless it is on a cycle (in a dependency graph: everything that needs it). */
export function ancestors<N>(graph: Graph<N>, node: N): Set<N> {
  const back = inverse(graph);
  return reachable(back, back.get(node) ?? []);
}
