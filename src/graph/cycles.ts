/**
 * Cycles of a graph, each as the path that closes it (`[a, b, c, a]`: edges a->b, b->c, c->a): the cycle of
 * every back edge met walking depth first from each node in the order given, edges in the order given. A graph
 * has a cycle exactly when this finds one; a cycle reachable along several back edges is reported for each.
 */
import { edgesOf, type Graph } from './graph.js';

export function findCycles<N>(graph: Graph<N>): N[][] {
  const cycles: N[][] = [];
  const state = new Map<N, 'visiting' | 'done'>();
  for (const root of graph.keys()) {
    if (state.has(root)) continue;
    state.set(root, 'visiting');
    const path: N[] = [root];
    const stack: Iterator<N>[] = [edgesOf(graph, root)[Symbol.iterator]()];
    while (stack.length > 0) {
      const step = stack[stack.length - 1]!.next();
      if (step.done) {
        state.set(path.pop()!, 'done');
        stack.pop();
      } else if (state.get(step.value) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(step.value)), step.value]);
      } else if (!state.has(step.value)) {
        state.set(step.value, 'visiting');
        path.push(step.value);
        stack.push(edgesOf(graph, step.value)[Symbol.iterator]());
      }
    }
  }
  return cycles;
}

/** A cycle path turned to start (and end) at its smallest node in `compare`'s order, as one report of it. */
export function startingAtSmallest<N>(cycle: readonly N[], compare: (a: N, b: N) => number): N[] {
  const ring = cycle.slice(0, -1);
  const start = ring.reduce((best, node, i) => (compare(node, ring[best]!) < 0 ? i : best), 0);
  const turned = [...ring.slice(start), ...ring.slice(0, start)];
  return [...turned, turned[0]!];
}
