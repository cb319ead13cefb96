/**
 * Orders of a dependency graph: the stable topological order (each node after the nodes it needs, otherwise in
 * the order given), the depth-first order (each node after what it reaches, from the roots given), and the
 * waves (levels that can run in parallel: each node one wave after the last of its needs).
 */
import { findCycles } from './cycles.js';
import { edgesOf, type Graph } from './graph.js';
import { DependencyWalk } from './walk.js';

export interface Ordered<N> {
  /** Each node after the nodes it needs; among nodes ready at once, the one given first first. */
  order: N[];
  /** The nodes that could not be placed (in the order given): empty unless the graph has a cycle. */
  stuck: N[];
  /** With `stuck` nodes, one cycle among them as a path (`[a, b, a]`: a needs b, b needs a). */
  cycle?: N[];
}

/** The stable topological order (Kahn's algorithm, ties broken by the order of the graph's keys). */
export function topologicalOrder<N>(graph: Graph<N>): Ordered<N> {
  const walk = new DependencyWalk(graph);
  const order: N[] = [];
  while (walk.readyCount > 0) {
    const node = walk.take();
    order.push(node);
    walk.done(node);
  }
  return withStuck(graph, order);
}

/**
 * Each node after every node it reaches, walking depth first from `roots` (default: every node of a `Graph`, in the
 * order given), each node once. On a cycle the node that closes it comes first; callers that need a cycle reported
 * use `findCycles`. The graph may be given by its two questions alone (`get`, `has`), with the roots.
 */
export function depthFirstOrder<N>(
  graph: Pick<Graph<N>, 'get' | 'has'> & { keys?(): Iterable<N> },
  roots: Iterable<N> = graph.keys?.() ?? [],
): N[] {
  const out: N[] = [];
  const seen = new Set<N>();
  // An explicit stack rather than recursion: a long chain of dependencies must not overflow the call stack. Each
  // frame is a node, its edges and how many of them were walked; an edge seen already, or to a node not in the
  // graph, is passed over (as `edgesOf` would leave it out). No copies of the edges nor iterator results: this
  // orders every address of every plan.
  const nodes: N[] = [];
  const edges: (readonly N[])[] = [];
  const walked: number[] = [];
  const enter = (node: N) => {
    seen.add(node);
    const to = graph.get(node)!;
    nodes.push(node);
    edges.push(Array.isArray(to) ? to : [...to]);
    walked.push(0);
  };
  for (const root of roots) {
    if (seen.has(root) || !graph.has(root)) continue;
    enter(root);
    while (nodes.length > 0) {
      const top = nodes.length - 1;
      const to = edges[top]!;
      if (walked[top] === to.length) {
        out.push(nodes.pop()!);
        edges.pop();
        walked.pop();
        continue;
      }
      const next = to[walked[top]!++]!;
      if (!seen.has(next) && graph.has(next)) enter(next);
    }
  }
  return out;
}

export interface Waves<N> {
  /** Wave 0 needs nothing; each node is in the wave after the last wave of what it needs; each wave in the order given. */
  waves: N[][];
  stuck: N[];
  cycle?: N[];
}

/** The waves of a dependency graph: the nodes of one wave need nothing of their own wave or a later one. */
export function waves<N>(graph: Graph<N>): Waves<N> {
  const { order, stuck, cycle } = topologicalOrder(graph);
  const level = new Map<N, number>();
  for (const node of order) level.set(node, Math.max(-1, ...edgesOf(graph, node).map((need) => level.get(need)!)) + 1);
  const out: N[][] = [];
  for (const node of graph.keys()) {
    const at = level.get(node);
    if (at !== undefined) (out[at] ??= []).push(node);
  }
  return { waves: out, stuck, ...(cycle ? { cycle } : {}) };
}

function withStuck<N>(graph: Graph<N>, order: N[]): Ordered<N> {
  if (order.length === graph.size) return { order, stuck: [] };
  const placed = new Set(order);
  const stuck = [...graph.keys()].filter((node) => !placed.has(node));
  const among = new Map(stuck.map((node) => [node, edgesOf(graph, node).filter((need) => !placed.has(need))]));
  return { order, stuck, cycle: findCycles(among)[0] };
}
