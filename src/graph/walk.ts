/**
 * A dependency graph walked as its nodes finish: a node is ready once every node it needs is done, and the
 * ready node given first is taken first. `topologicalOrder` takes each node as soon as it is ready; the applier
 * runs several at once and says when each is done.
 */
import { edgesOf, type Graph } from './graph.js';
import { ReadyQueue } from './ready-queue.js';

export class DependencyWalk<N> {
  readonly nodes: readonly N[];
  private readonly position: Map<N, number>;
  private readonly waiting: number[];
  private readonly dependents: number[][];
  private readonly ready = new ReadyQueue();

  constructor(graph: Graph<N>) {
    this.nodes = [...graph.keys()];
    this.position = new Map(this.nodes.map((node, i) => [node, i]));
    this.dependents = this.nodes.map(() => []);
    this.waiting = this.nodes.map((node, i) => {
      const needs = edgesOf(graph, node);
      for (const need of needs) this.dependents[this.position.get(need)!]!.push(i);
      return needs.length;
    });
    for (const [i, count] of this.waiting.entries()) if (count === 0) this.ready.push(i);
  }

  /** How many nodes are ready and not taken yet. */
  get readyCount(): number {
    return this.ready.size;
  }

  /** The ready node given first, taken (the walk must have one ready: see `readyCount`). */
  take(): N {
    return this.nodes[this.ready.pop()]!;
  }

  /** Marks a taken node done: the nodes that needed only it (of what is left) become ready. */
  done(node: N): void {
    for (const d of this.dependents[this.position.get(node)!]!) if (--this.waiting[d]! === 0) this.ready.push(d);
  }
}
