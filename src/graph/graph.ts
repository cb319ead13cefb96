/**
 * A directed graph as plain data: each node, in a stable order, with the nodes its edges go to. In a
 * dependency graph an edge goes from a node to a node it needs (a step to the steps it waits for, a kind to
 * the kinds it needs). The order of the keys is the order ties are broken in, everywhere in this folder.
 * An edge to a node that is not a key is ignored by every function here.
 */
export type Graph<N> = ReadonlyMap<N, Iterable<N>>;

/** The same nodes with every edge turned around (a dependency graph becomes its dependents graph). */
export function inverse<N>(graph: Graph<N>): Map<N, N[]> {
  const out = new Map<N, N[]>([...graph.keys()].map((node) => [node, []]));
  for (const [from, tos] of graph) for (const to of new Set(tos)) out.get(to)?.push(from);
  return out;
}

/** The edges of `node` that go to nodes of the graph, each once, in the order given. */
export function edgesOf<N>(graph: Graph<N>, node: N): N[] {
  return [...new Set(graph.get(node) ?? [])].filter((to) => graph.has(to));
}
