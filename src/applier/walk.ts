/**
 * The walk of an apply: runs each plan step once the steps it depends on are done (ready-steps.ts), with at most
 * twice `parallelism` steps at once and `parallelism` writes in flight, and reports each step as it ends. A failed
 * step stops only its dependents (skipped, their errors suppressed since they would repeat the first); an
 * interrupt stops new writes from starting while the ones in flight finish and are saved.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientEvent } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { Limiter } from '../api/limiter.js';
import type { PlanStep } from '../plan-model/index.js';
import { Interrupted, type ApplyOptions, type ApplyRun } from './apply-run.js';
import type { ApplyEvent, ApplyResult, StepRef } from './events.js';
import { ReadySteps } from './ready-steps.js';
import { runStep } from './run-step.js';

/** The step a request belongs to, so the client's retry events can be shown on the right line. */
const currentStep = new AsyncLocalStorage<StepRef>();

/**
 * Turns the client's retry events into `step-retry` events of the step that sent the request, and a new request rate
 * (a 429 the client learned from) into `rate-limited`.
 */
export function forwardClientEvents(onEvent: (event: ApplyEvent) => void): (event: ClientEvent) => void {
  return (event) => {
    if (event.type === 'rate') {
      onEvent({ type: 'rate-limited', ratePerSecond: Math.round(event.ratePerSecond * 10) / 10 });
      return;
    }
    const step = currentStep.getStore();
    if (event.type !== 'retry' || !step) return;
    onEvent({
      type: 'step-retry',
      ...step,
      attempt: event.attempt,
      delayMs: event.delayMs,
      reason: event.reason,
      ...(event.status ? { status: event.status } : {}),
    });
  };
}

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const started = performance.now();
  const emit = options.onEvent ?? (() => undefined);
  const parallelism = Math.max(1, options.parallelism ?? 10);
  // Twice as many steps run as writes may be in flight: while `parallelism` writes wait for their answers, the
  // next ones are prepared (placeholders resolved, data keys wrapped, entries journaled), and each goes out the
  // moment a write ends, instead of a free slot waiting for the CPU (docs/performance.md, "Apply").
  const stepsAtOnce = 2 * parallelism;
  const run: ApplyRun = { options, interrupted: () => options.signal?.aborted === true, sending: new Limiter(parallelism) };
  const { interrupted } = run;
  const steps = options.plan.steps.filter(hasWork);
  const ready = new ReadySteps(steps);
  const result: ApplyResult = { done: [], failed: [], skipped: [], interrupted: false, durationMs: 0 };
  const running = new Set<Promise<void>>();

  const start = async (i: number): Promise<void> => {
    const step = steps[i]!;
    const ref = refOf(step);
    const t0 = performance.now();
    emit({ type: 'step-started', ...ref, total: steps.length });
    try {
      const { sealed, notices } = await currentStep.run(ref, () => runStep(step, run));
      const id = options.state.data.resources[step.address]?.id;
      const done = {
        ...ref,
        ...(id && !step.forget ? { id } : {}),
        durationMs: Math.round(performance.now() - t0),
        sealed,
        ...(notices.length > 0 ? { notices } : {}),
      };
      result.done.push(done);
      emit({ type: 'step-done', ...done });
      ready.done(i);
    } catch (error) {
      if (error instanceof Interrupted) {
        // Its dependents stay pending and are reported as interrupted at the end.
        ready.stopped(i);
        result.skipped.push({ ...ref, cause: 'interrupted' });
        emit({ type: 'step-skipped', ...ref, cause: 'interrupted' });
        return;
      }
      const failure = { ...ref, reason: reasonOf(error), ...apiFacts(error) };
      result.failed.push(failure);
      emit({ type: 'step-failed', ...failure, durationMs: Math.round(performance.now() - t0) });
      for (const d of ready.failed(i)) {
        const skip = { ...refOf(steps[d]!), cause: 'dependency-failed' as const, after: step.address };
        result.skipped.push(skip);
        emit({ type: 'step-skipped', ...skip });
      }
    }
  };

  for (;;) {
    while (!interrupted() && running.size < stepsAtOnce) {
      const i = ready.take();
      if (i === undefined) break;
      const task: Promise<void> = start(i).finally(() => running.delete(task));
      running.add(task);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }

  result.interrupted = interrupted();
  for (const step of ready.pending()) {
    result.skipped.push({ ...refOf(step), cause: 'interrupted' });
    emit({ type: 'step-skipped', ...refOf(step), cause: 'interrupted' });
  }
  result.durationMs = Math.round(performance.now() - started);
  return result;
}

/** A no-op step still has work when it records something in state (a refresh-only plan's live values or a forget). */
function hasWork(step: PlanStep): boolean {
  return (
    step.action !== 'no-op' ||
    step.writes.length > 0 ||
    step.adopt !== undefined ||
    step.inputs !== undefined ||
    step.forget === true ||
    step.moved !== undefined
  );
}

function refOf(step: PlanStep): StepRef {
  return { stepId: step.address, address: step.address, kind: step.kind, action: step.action };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function apiFacts(error: unknown): { status?: number; requestId?: string } {
  if (!(error instanceof ApiError)) return {};
  return { status: error.status, ...(error.requestId ? { requestId: error.requestId } : {}) };
}
