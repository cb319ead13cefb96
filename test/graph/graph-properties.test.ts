// The one graph module, checked as properties over random graphs (fast-check, seeded): every edge goes forward in
// the topological order, and the order is the stable one (the ready node given first goes first); a reported
// cycle is a real cycle of the graph, and a graph without one has its every node ordered; waves respect edges and
// cover the nodes; reachability matches a naive closure and is transitive. A few worked examples pin the exact
// answers the planner and the applier rely on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ancestors,
  DependencyWalk,
  depthFirstOrder,
  descendants,
  findCycles,
  inverse,
  reachable,
  startingAtSmallest,
  topologicalOrder,
  waves,
  type Graph,
} from '../../src/graph/index.js';

const SEED = 30_3;
const runs = { seed: SEED, numRuns: 300 };

/** A random graph on nodes 0..n-1 (keys in a shuffled order), with edges possibly to nodes outside it (ignored). */
const anyGraph = fc.integer({ min: 0, max: 12 }).chain((n) =>
  fc
    .tuple(
      fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
      fc.array(fc.tuple(fc.nat(Math.max(0, n - 1)), fc.nat(n + 1)), { maxLength: n * 3 }),
    )
    .map(([order, edges]) => {
      const graph = new Map<number, number[]>(order.map((node) => [node, []]));
      for (const [from, to] of edges) graph.get(from)?.push(to);
      return graph;
    }),
);

/** A random graph with no cycle: every edge goes from a larger node to a smaller one. */
const acyclicGraph = anyGraph.map((graph) => new Map([...graph].map(([node, tos]) => [node, tos.filter((to) => to < node)])));

const edges = (graph: Graph<number>) =>
  [...graph].flatMap(([from, tos]) => [...tos].filter((to) => graph.has(to)).map((to) => [from, to] as const));
const hasEdge = (graph: Graph<number>, from: number, to: number) => [...(graph.get(from) ?? [])].includes(to);

/** The closure the slow way: add the edges' targets until nothing changes. */
function naiveClosure(graph: Graph<number>, starts: number[]): Set<number> {
  const out = new Set(starts.filter((s) => graph.has(s)));
  for (let grown = true; grown;) {
    grown = false;
    for (const [from, to] of edges(graph)) if (out.has(from) && !out.has(to)) grown = Boolean(out.add(to));
  }
  return out;
}

describe('topological order', () => {
  it('puts every node of an acyclic graph after every node it needs, each once', () => {
    fc.assert(
      fc.property(acyclicGraph, (graph) => {
        const { order, stuck, cycle } = topologicalOrder(graph);
        expect(stuck).toEqual([]);
        expect(cycle).toBeUndefined();
        expect([...order].sort((a, b) => a - b)).toEqual([...graph.keys()].sort((a, b) => a - b));
        const at = new Map(order.map((node, i) => [node, i]));
        for (const [from, to] of edges(graph)) expect(at.get(to)!).toBeLessThan(at.get(from)!);
      }),
      runs,
    );
  });

  it('is stable: at each place, the first node given whose needs are all placed', () => {
    fc.assert(
      fc.property(acyclicGraph, (graph) => {
        const keys = [...graph.keys()];
        const placed = new Set<number>();
        for (const node of topologicalOrder(graph).order) {
          const first = keys.find((k) => !placed.has(k) && [...graph.get(k)!].every((need) => placed.has(need) || !graph.has(need)));
          expect(node).toBe(first);
          placed.add(node);
        }
      }),
      runs,
    );
  });

  it('orders what it can of a cyclic graph and reports the rest with a real cycle among them', () => {
    fc.assert(
      fc.property(anyGraph, (graph) => {
        const { order, stuck, cycle } = topologicalOrder(graph);
        expect(order.length + stuck.length).toBe(graph.size);
        if (stuck.length === 0) {
          expect(findCycles(graph)).toEqual([]);
          return;
        }
        expect(cycle).toBeDefined();
        expect(cycle![0]).toBe(cycle![cycle!.length - 1]);
        for (let i = 0; i + 1 < cycle!.length; i++) expect(hasEdge(graph, cycle![i]!, cycle![i + 1]!)).toBe(true);
        for (const node of cycle!) expect(stuck).toContain(node);
      }),
      runs,
    );
  });

  it('the walk taken one node at a time is the topological order', () => {
    fc.assert(
      fc.property(anyGraph, (graph) => {
        const walk = new DependencyWalk(graph);
        const seen: number[] = [];
        while (walk.readyCount > 0) {
          const node = walk.take();
          seen.push(node);
          walk.done(node);
        }
        expect(seen).toEqual(topologicalOrder(graph).order);
      }),
      runs,
    );
  });

  it('worked example: the plan steps of order.test.ts', () => {
    const graph = new Map([
      ['c', ['b']],
      ['a', []],
      ['b', ['a']],
      ['d', []],
    ]);
    expect(topologicalOrder(graph)).toEqual({ order: ['a', 'b', 'c', 'd'], stuck: [] });
    expect(
      topologicalOrder(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
          ['c', []],
        ]),
      ),
    ).toEqual({ order: ['c'], stuck: ['a', 'b'], cycle: ['a', 'b', 'a'] });
  });
});

describe('cycles', () => {
  it('reports only real cycles, and finds one exactly when the graph has one', () => {
    fc.assert(
      fc.property(anyGraph, (graph) => {
        const cycles = findCycles(graph);
        for (const cycle of cycles) {
          expect(cycle.length).toBeGreaterThanOrEqual(2);
          expect(cycle[0]).toBe(cycle[cycle.length - 1]);
          // A simple cycle: no node twice but the one that closes it.
          expect(new Set(cycle.slice(0, -1)).size).toBe(cycle.length - 1);
          for (let i = 0; i + 1 < cycle.length; i++) expect(hasEdge(graph, cycle[i]!, cycle[i + 1]!)).toBe(true);
        }
        // A graph has a cycle exactly when some node reaches itself.
        const someNodeReachesItself = [...graph.keys()].some((node) => descendants(graph, node).has(node));
        expect(cycles.length > 0).toBe(someNodeReachesItself);
      }),
      runs,
    );
  });

  it('turning a cycle to start at its smallest node keeps it the same cycle', () => {
    fc.assert(
      fc.property(anyGraph, (graph) => {
        for (const cycle of findCycles(graph)) {
          const turned = startingAtSmallest(cycle, (a, b) => a - b);
          expect(turned[0]).toBe(Math.min(...cycle));
          expect(turned.length).toBe(cycle.length);
          for (let i = 0; i + 1 < turned.length; i++) expect(hasEdge(graph, turned[i]!, turned[i + 1]!)).toBe(true);
        }
      }),
      runs,
    );
  });

  it('worked example: the path of a three-node loop, and a self-loop', () => {
    expect(
      findCycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']]);
    expect(findCycles(new Map([['x', ['x']]]))).toEqual([['x', 'x']]);
  });
});

describe('waves', () => {
  it('cover every node of an acyclic graph once, and each node comes in a later wave than all it needs', () => {
    fc.assert(
      fc.property(acyclicGraph, (graph) => {
        const result = waves(graph);
        expect(result.stuck).toEqual([]);
        const waveOf = new Map(result.waves.flatMap((wave, i) => wave.map((node) => [node, i] as const)));
        expect(result.waves.flat().length).toBe(graph.size);
        expect([...waveOf.keys()].sort((a, b) => a - b)).toEqual([...graph.keys()].sort((a, b) => a - b));
        for (const [from, to] of edges(graph)) expect(waveOf.get(to)!).toBeLessThan(waveOf.get(from)!);
        // As early as possible: a node after wave 0 needs something of the wave just before it.
        for (const [node, i] of waveOf) if (i > 0) expect([...graph.get(node)!].some((need) => waveOf.get(need) === i - 1)).toBe(true);
        for (const wave of result.waves) expect(wave.length).toBeGreaterThan(0);
      }),
      runs,
    );
  });

  it('leave the nodes of a cycle (and what needs them) stuck', () => {
    expect(
      waves(
        new Map([
          ['a', []],
          ['b', ['a']],
          ['c', ['a']],
          ['d', ['e']],
          ['e', ['d']],
          ['f', ['d', 'b']],
        ]),
      ),
    ).toEqual({
      waves: [['a'], ['b', 'c']],
      stuck: ['d', 'e', 'f'],
      cycle: ['d', 'e', 'd'],
    });
  });
});

describe('reachability', () => {
  it('matches a naive closure, from any set of starts', () => {
    fc.assert(
      fc.property(anyGraph, fc.array(fc.nat(14), { maxLength: 4 }), (graph, starts) => {
        expect(reachable(graph, starts)).toEqual(naiveClosure(graph, starts));
      }),
      runs,
    );
  });

  it('is transitive: what a descendant reaches, the node reaches; ancestors are descendants turned around', () => {
    fc.assert(
      fc.property(anyGraph, (graph) => {
        for (const node of graph.keys()) {
          const below = descendants(graph, node);
          for (const d of below) for (const further of descendants(graph, d)) expect(below.has(further)).toBe(true);
          for (const other of graph.keys()) expect(ancestors(graph, other).has(node)).toBe(below.has(other));
        }
        // Turning the edges around twice gives the same edges.
        const twice = inverse(inverse(graph));
        for (const node of graph.keys())
          expect(new Set(twice.get(node))).toEqual(new Set([...graph.get(node)!].filter((to) => graph.has(to))));
      }),
      runs,
    );
  });

  it('enters only the nodes allowed, and nothing beyond them', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', []],
      ['d', ['c']],
    ]);
    expect(reachable(graph, ['a'], { enter: (n) => n !== 'b' })).toEqual(new Set(['a']));
    expect(reachable(graph, ['a', 'd'], { enter: (n) => n !== 'b' })).toEqual(new Set(['a', 'd', 'c']));
  });
});

describe('depth-first order', () => {
  it('puts each node of an acyclic graph after what it reaches, from the roots given', () => {
    fc.assert(
      fc.property(acyclicGraph, (graph) => {
        const order = depthFirstOrder(graph, [...graph.keys()].reverse());
        expect([...order].sort((a, b) => a - b)).toEqual([...graph.keys()].sort((a, b) => a - b));
        const at = new Map(order.map((node, i) => [node, i]));
        for (const [from, to] of edges(graph)) expect(at.get(to)!).toBeLessThan(at.get(from)!);
      }),
      runs,
    );
  });

  it('visits each node once even around a cycle, and only what the roots reach', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['a']],
      ['c', ['a']],
      ['d', []],
    ]);
    expect(depthFirstOrder(graph, ['c'])).toEqual(['b', 'a', 'c']);
    expect(depthFirstOrder(graph)).toEqual(['b', 'a', 'c', 'd']);
  });

  it('walks a chain of 30,000 dependencies without overflowing the stack', () => {
    const n = 30_000;
    const chain = new Map([...Array(n).keys()].map((i) => [i, i > 0 ? [i - 1] : []]));
    const order = depthFirstOrder(chain, [n - 1]);
    expect(order[0]).toBe(0);
    expect(order[n - 1]).toBe(n - 1);
    expect(findCycles(chain)).toEqual([]);
  });
});
