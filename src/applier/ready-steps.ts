/**
 * The applier's ready queue: which of a plan's steps may start now. A step is ready once the steps it depends on
 * (inside the plan: one outside it, excluded by --target, is taken as satisfied) are done; the ready step first
 * in the plan starts first (graph/'s `DependencyWalk`, a heap of plan positions). A failed step never lets its
 * dependents start: they are skipped, in plan order, naming it as the cause.
 */
import { DependencyWalk, inverse, reachable } from '../graph/index.js';
import type { PlanStep } from '../plan-model/index.js';

type Status = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

export class ReadySteps {
  private readonly status: Status[];
  private readonly walk: DependencyWalk<number>;
  private readonly dependents: Map<number, number[]>;

  constructor(readonly steps: readonly PlanStep[]) {
    const position = new Map(steps.map((s, i) => [s.address, i]));
    this.status = steps.map(() => 'pending');
    const needs = new Map(steps.map((s, i) => [i, s.dependsOn.filter((d) => position.has(d)).map((d) => position.get(d)!)]));
    this.walk = new DependencyWalk(needs);
    this.dependents = inverse(needs);
  }

  /** The position of the next ready step, marked running, or undefined when none is ready now. */
  take(): number | undefined {
    while (this.walk.readyCount > 0) {
      const i = this.walk.take();
      if (this.status[i] !== 'pending') continue;
      this.status[i] = 'running';
      return i;
    }
    return undefined;
  }

  /** The step at `i` is done: the steps that waited only for it become ready. */
  done(i: number): void {
    this.status[i] = 'done';
    this.walk.done(i);
  }

  /** The step at `i` did not start its work (the apply was interrupted): its dependents stay pending. */
  stopped(i: number): void {
    this.status[i] = 'skipped';
  }

  /** The step at `i` failed: the positions of the pending steps that depend on it, now skipped, in plan order. */
  failed(i: number): number[] {
    this.status[i] = 'failed';
    const found = reachable(this.dependents, this.dependents.get(i)!, { enter: (d) => this.status[d] === 'pending' });
    const skipped = [...found].sort((a, b) => a - b);
    for (const d of skipped) this.status[d] = 'skipped';
    return skipped;
  }

  /** The steps never started, in plan order (left by an interrupt). */
  pending(): PlanStep[] {
    return this.steps.filter((_, i) => this.status[i] === 'pending');
  }
}
