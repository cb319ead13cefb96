/**
 * The graph walk: runs each plan step once the steps it depends on are done,
 * and each step's writes in order through the journal, with at most
 * `parallelism` writes in flight. A failed step stops only its dependents
 * (skipped, their errors suppressed since they would repeat the first); an
 * interrupt stops new writes from starting while the ones in flight finish and
 * are saved.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { ApiClient, ClientEvent } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { Limiter } from '../api/limiter.js';
import { DependencyWalk, inverse, reachable } from '../graph/index.js';
import type { Plan, PlanStep, PlannedWrite } from '../plan-model/index.js';
import { renamedEntry, type StateStore } from '../state/index.js';
import type { JournalEntry } from '../state/types.js';
import type { ApplyEvent, ApplyResult, StepRef } from './events.js';
import { noticesOf, recordResult, removeEntry, saveEntry, sendEntry, settleFailure } from './journal.js';
import { readResultPath, resolvePathParams, resolveTemplate, type KeyRing, type TemplateContext, type WrittenValue } from './template.js';

export interface ApplyOptions {
  plan: Plan;
  state: StateStore;
  client: ApiClient;
  /** Writes in flight at once (default 10); twice as many steps run, the others preparing their next write. */
  parallelism?: number;
  /** When aborted, no new write starts; writes in flight finish and are recorded. */
  signal?: AbortSignal;
  onEvent?: (event: ApplyEvent) => void;
  /** The apply-time resolvers of the placeholders that need a secret or a key (see `stateKeyRing`). */
  keyRing: KeyRing;
  now?: () => Date;
}

/** The step a request belongs to, so the client's retry events can be shown on the right line. */
const currentStep = new AsyncLocalStorage<StepRef>();

/** Turns the client's retry events into `step-retry` events of the step that sent the request. */
export function forwardClientEvents(onEvent: (event: ApplyEvent) => void): (event: ClientEvent) => void {
  return (event) => {
    const step = currentStep.getStore();
    if (event.type !== 'retry' || !step) return;
    onEvent({ type: 'step-retry', ...step, attempt: event.attempt, delayMs: event.delayMs, reason: event.reason, ...(event.status ? { status: event.status } : {}) });
  };
}

type Status = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

class Interrupted extends Error {}

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const started = performance.now();
  const emit = options.onEvent ?? (() => undefined);
  const parallelism = Math.max(1, options.parallelism ?? 10);
  // Twice as many steps run as writes may be in flight: while `parallelism` writes wait for their answers, the
  // next ones are prepared (placeholders resolved, data keys wrapped, entries journaled), and each goes out the
  // moment a write ends, instead of a free slot waiting for the CPU (docs/performance.md, "Apply").
  const stepsAtOnce = 2 * parallelism;
  const walk: Walk = { options, interrupted: () => options.signal?.aborted === true, sending: new Limiter(parallelism) };
  const { interrupted } = walk;
  const steps = options.plan.steps.filter(hasWork);
  const position = new Map(steps.map((s, i) => [s.id, i]));
  const status: Status[] = steps.map(() => 'pending');
  // Dependencies inside the plan only (the walk ignores the others): one outside it (e.g. excluded by --target) is
  // taken as satisfied. Steps are walked by plan position, so the ready step first in the plan starts first.
  const needs = new Map(steps.map((s, i) => [i, s.dependsOn.filter((d) => position.has(d)).map((d) => position.get(d)!)]));
  const ready = new DependencyWalk(needs);
  const dependents = inverse(needs);
  const result: ApplyResult = { done: [], failed: [], skipped: [], interrupted: false, durationMs: 0 };
  const running = new Set<Promise<void>>();

  /** Skips everything that depends on the failed step at `root`, in plan order, naming the root as the cause. */
  const skipDependentsOf = (root: number) => {
    const found = reachable(dependents, dependents.get(root)!, { enter: (i) => status[i] === 'pending' });
    for (const i of [...found].sort((a, b) => a - b)) {
      status[i] = 'skipped';
      const skip = { ...refOf(steps[i]!), cause: 'dependency-failed' as const, after: steps[root]!.address };
      result.skipped.push(skip);
      emit({ type: 'step-skipped', ...skip });
    }
  };

  const run = async (i: number): Promise<void> => {
    const step = steps[i]!;
    const ref = refOf(step);
    const t0 = performance.now();
    emit({ type: 'step-started', ...ref, total: steps.length });
    try {
      const { sealed, notices } = await currentStep.run(ref, () => runStep(step, walk));
      status[i] = 'done';
      const id = options.state.data.resources[step.address]?.id;
      const done = { ...ref, ...(id && !step.forget ? { id } : {}), durationMs: Math.round(performance.now() - t0), sealed, ...(notices.length > 0 ? { notices } : {}) };
      result.done.push(done);
      emit({ type: 'step-done', ...done });
      ready.done(i);
    } catch (error) {
      if (error instanceof Interrupted) {
        // Its dependents stay pending and are reported as interrupted at the end.
        status[i] = 'skipped';
        result.skipped.push({ ...ref, cause: 'interrupted' });
        emit({ type: 'step-skipped', ...ref, cause: 'interrupted' });
        return;
      }
      status[i] = 'failed';
      const failure = { ...ref, reason: reasonOf(error), ...apiFacts(error) };
      result.failed.push(failure);
      emit({ type: 'step-failed', ...failure, durationMs: Math.round(performance.now() - t0) });
      skipDependentsOf(i);
    }
  };

  for (;;) {
    while (!interrupted() && running.size < stepsAtOnce && ready.readyCount > 0) {
      const i = ready.take();
      if (status[i] !== 'pending') continue;
      status[i] = 'running';
      const task: Promise<void> = run(i).finally(() => running.delete(task));
      running.add(task);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }

  result.interrupted = interrupted();
  for (const [i, step] of steps.entries()) {
    if (status[i] !== 'pending') continue;
    result.skipped.push({ ...refOf(step), cause: 'interrupted' });
    emit({ type: 'step-skipped', ...refOf(step), cause: 'interrupted' });
  }
  result.durationMs = Math.round(performance.now() - started);
  return result;
}

/** A no-op step still has work when it records something in state (a refresh-only plan's live values or a forget). */
function hasWork(step: PlanStep): boolean {
  return step.action !== 'no-op' || step.writes.length > 0 || step.adopt !== undefined || step.inputs !== undefined || step.forget === true || step.moved !== undefined;
}

function refOf(step: PlanStep): StepRef {
  return { stepId: step.id, address: step.address, kind: step.kind, action: step.action };
}

/** What a step's writes left for people: the names of the secrets sealed, and the notices their answers bore out. */
interface StepOutcome {
  sealed: string[];
  notices: string[];
}

/** What every step of one apply shares. */
interface Walk {
  options: ApplyOptions;
  interrupted: () => boolean;
  /** The write slots: at most `parallelism` writes in flight. */
  sending: Limiter;
}

async function runStep(step: PlanStep, walk: Walk): Promise<StepOutcome> {
  const { options, interrupted } = walk;
  const { state } = options;
  const now = () => (options.now ? options.now() : new Date());
  if (interrupted()) throw new Interrupted();
  const moved = step.moved;
  if (moved) {
    // A `moved` block: the entry is renamed before any write, once (a second run finds it renamed already).
    await state.update((draft) => {
      const entry = draft.resources[moved.from];
      if (!entry || draft.resources[step.address]) return;
      delete draft.resources[moved.from];
      draft.resources[step.address] = renamedEntry(state.crypto, entry, moved.from, step.address);
    });
  }
  if (step.adopt) {
    const adopt = step.adopt;
    const at = now().toISOString();
    await state.update((draft) => {
      const existing = draft.resources[step.address];
      draft.resources[step.address] = {
        kind: step.kind,
        id: adopt.id,
        ...(adopt.parents ? { parents: adopt.parents } : {}),
        inputs: {},
        fingerprints: {},
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
    });
  }
  const outcome: StepOutcome = { sealed: [], notices: [] };
  // The fingerprints of the values the step's writes carry, recorded with its last write only (as its inputs
  // are): a step is done only when all its writes are. A record's new value version is followed by the re-wraps
  // of its data key for every reader; were its fingerprint recorded with the version, an apply killed before the
  // re-wraps would leave state saying the value is written, the next plan would see no change, and the readers
  // could not read the new value. Recorded last, the next plan still sees the value changed and writes it again,
  // re-wrapped for every reader (docs/access.md, "Reliability"). A generated value has no source to compare with:
  // the write that makes it marks its fingerprint unfinished, so the next plan makes it again all the same.
  const fingerprints: Record<string, string> = {};
  // A write for another address (a revocation after a delivery) records nothing of this step's: the step's own
  // last write records its fingerprints and inputs.
  const lastOwn = step.writes.findLastIndex((w) => w.address === undefined);
  for (const [index, write] of step.writes.entries()) {
    if (interrupted()) throw new Interrupted();
    const { sealed, notices } = await runWrite(step, write, index === lastOwn, fingerprints, walk);
    outcome.sealed.push(...sealed);
    outcome.notices.push(...notices);
  }
  if (lastOwn === -1) {
    await state.update((draft) => {
      if (step.forget) delete draft.resources[step.address];
      else if (step.inputs && draft.resources[step.address]) draft.resources[step.address]!.inputs = step.inputs;
    });
  }
  return outcome;
}

/**
 * Sends one write of a step through the journal; `fingerprints` gathers the step's, given to the entry of its last
 * write (an earlier write records the values it carries as unfinished).
 */
async function runWrite(step: PlanStep, write: PlannedWrite, last: boolean, fingerprints: Record<string, string>, walk: Walk): Promise<StepOutcome> {
  const { options, interrupted } = walk;
  const { state, client } = options;
  const other = write.address !== undefined && write.address !== step.address;
  // Only a settlement of a superseded object may be recorded on another address (a saved plan is checked, but
  // the applier never lets a write change another address's id, secrets or presence in state).
  if (other && Object.keys(write.effects).some((key) => key !== 'settleSuperseded')) throw new Error(`${step.address}: the write ${write.id} for ${write.address} may only settle a superseded object`);
  const context: TemplateContext = { resources: state.data.resources, sources: other ? {} : (step.secrets ?? {}), address: step.address, keyRing: options.keyRing };
  const pathParams = await resolvePathParams(write.path, context);
  const resolved = write.body === undefined ? undefined : await resolveTemplate(write.body, context);
  const bytes = resolved === undefined ? undefined : JSON.stringify(resolved.value);
  const secrets = resolved?.secrets ?? new Map<string, string>();
  for (const [field, plaintext] of secrets) fingerprints[field] = state.crypto.fingerprint(step.address, field, plaintext);
  const recorded = last ? { ...fingerprints } : Object.fromEntries([...secrets.keys()].map((field) => [field, state.crypto.unfinished(step.address, field)]));
  const entry: JournalEntry = {
    id: randomUUID(),
    address: other ? write.address! : step.address,
    stepId: step.id,
    operation: write.operation,
    pathParams,
    idempotencyKey: write.idempotencyKey,
    body: bytes === undefined ? null : secrets.size > 0 ? { sealed: state.crypto.sealBody(step.address, bytes) } : { plain: bytes },
    createdAt: (options.now ? options.now() : new Date()).toISOString(),
    effects: write.effects,
    ...(Object.keys(recorded).length > 0 && !other ? { fingerprints: recorded } : {}),
    ...(other ? {} : { kind: step.kind }),
    ...(last && step.inputs && !step.forget ? { inputs: step.inputs } : {}),
  };
  await saveEntry(state, entry);
  let answer: { data: unknown };
  try {
    answer = await walk.sending.run(() => {
      // A write prepared while others were in flight is not sent once the apply is interrupted: it never started.
      if (interrupted()) throw new Interrupted();
      return sendEntry(client, entry, bytes);
    });
  } catch (error) {
    if (error instanceof Interrupted) await removeEntry(state, entry);
    else await settleFailure(state, entry, error);
    throw error;
  }
  const written = resolved?.written && write.effects?.valueVersion ? checkWritten(write.effects.valueVersion, resolved.written, answer.data, state.data.resources[step.address]?.id) : undefined;
  // A value the API stored as another version than the one it was bound to cannot be read by anyone: its field is
  // recorded as unfinished (the next plan writes it again), and the step fails saying why.
  const recordedEntry = written?.problem ? { ...entry, fingerprints: Object.fromEntries(Object.keys(entry.fingerprints ?? {}).map((field) => [field, state.crypto.unfinished(step.address, field)])) } : entry;
  const sealed = await recordResult(state, recordedEntry, answer.data, options.now ? options.now() : new Date());
  if (written?.problem) throw new Error(written.problem);
  if (written?.value) options.keyRing.remember(written.value);
  return { sealed, notices: noticesOf(entry, answer.data) };
}

/**
 * What a value write's answer says it made (`valueVersion`), against what the value was bound to. The data key is
 * kept for the grants that follow only when the answer names the step's own record (the API is not trusted: an
 * answer naming another record must not get this value's key wrapped for that record's readers) and the version
 * the value was encrypted for.
 */
function checkWritten(paths: { record: string; version: string }, written: WrittenValue, answer: unknown, ownId: string | undefined): { value?: WrittenValue; problem?: string } {
  const recordId = readResultPath(answer, paths.record);
  const version = readResultPath(answer, paths.version);
  if (typeof recordId !== 'string' || recordId !== ownId || recordId !== written.recordId) return {};
  if (version !== written.version) {
    return { problem: `record ${recordId}: the API stored the value as version ${String(version)}, and it was encrypted for version ${written.version} (another writer changed the record since the plan); plan and apply again` };
  }
  return { value: written };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function apiFacts(error: unknown): { status?: number; requestId?: string } {
  if (!(error instanceof ApiError)) return {};
  return { status: error.status, ...(error.requestId ? { requestId: error.requestId } : {}) };
}
