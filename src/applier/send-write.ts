/**
 * One write of a step: its placeholders resolved (template.ts, with the key ring), saved in the journal, sent
 * in one of the apply's write slots, and its answer recorded in state. A value write's answer is checked against
 * the record and version its value was bound to (key-ring.ts) before its data key is kept for the grants.
 */
import { randomUUID } from 'node:crypto';
import type { PlanStep, PlannedWrite } from '../plan-model/index.js';
import type { JournalEntry } from '../state/types.js';
import { Interrupted, type ApplyRun } from './apply-run.js';
import { noticesOf, recordResult, removeEntry, saveEntry, sendEntry, settleFailure } from './journal.js';
import { boundWrittenValue } from './key-ring.js';
import { resolvePathParams, resolveTemplate, type TemplateScope } from './template.js';

/** What a step's writes left for people: the names of the secrets sealed, and the notices their answers bore out. */
export interface WriteOutcome {
  sealed: string[];
  notices: string[];
}

/**
 * Sends one write of a step through the journal; `fingerprints` gathers the step's, given to the entry of its last
 * write (an earlier write records the values it carries as unfinished).
 */
export async function sendWrite(
  step: PlanStep,
  write: PlannedWrite,
  last: boolean,
  fingerprints: Record<string, string>,
  run: ApplyRun,
): Promise<WriteOutcome> {
  const { options, interrupted } = run;
  const { state, client } = options;
  const other = write.address !== undefined && write.address !== step.address;
  // Only a settlement of a superseded object may be recorded on another address (a saved plan is checked, but
  // the applier never lets a write change another address's id, secrets or presence in state).
  if (other && Object.keys(write.effects).some((key) => key !== 'settleSuperseded'))
    throw new Error(`${step.address}: the write ${write.id} for ${write.address} may only settle a superseded object`);
  const scope: TemplateScope = {
    resources: state.data.resources,
    sources: other ? {} : (step.secrets ?? {}),
    address: step.address,
    keyRing: options.keyRing,
  };
  const pathParams = await resolvePathParams(write.path, scope);
  const resolved = write.body === undefined ? undefined : await resolveTemplate(write.body, scope);
  const bytes = resolved === undefined ? undefined : JSON.stringify(resolved.value);
  const secrets = resolved?.secrets ?? new Map<string, string>();
  for (const [field, plaintext] of secrets) fingerprints[field] = state.crypto.fingerprint(step.address, field, plaintext);
  const recorded = last
    ? { ...fingerprints }
    : Object.fromEntries([...secrets.keys()].map((field) => [field, state.crypto.unfinished(step.address, field)]));
  const entry: JournalEntry = {
    id: randomUUID(),
    address: other ? write.address! : step.address,
    stepId: step.address,
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
    answer = await run.sending.run(() => {
      // A write prepared while others were in flight is not sent once the apply is interrupted: it never started.
      if (interrupted()) throw new Interrupted();
      return sendEntry(client, entry, bytes);
    });
  } catch (error) {
    if (error instanceof Interrupted) await removeEntry(state, entry);
    else await settleFailure(state, entry, error);
    throw error;
  }
  const written =
    resolved?.written && write.effects?.valueVersion
      ? boundWrittenValue(write.effects.valueVersion, resolved.written, answer.data, state.data.resources[step.address]?.id)
      : undefined;
  // A value the API stored as another version than the one it was bound to cannot be read by anyone: its field is
  // recorded as unfinished (the next plan writes it again), and the step fails saying why.
  const recordedEntry = written?.problem
    ? {
        ...entry,
        fingerprints: Object.fromEntries(
          Object.keys(entry.fingerprints ?? {}).map((field) => [field, state.crypto.unfinished(step.address, field)]),
        ),
      }
    : entry;
  const sealed = await recordResult(state, recordedEntry, answer.data, options.now ? options.now() : new Date());
  if (written?.problem) throw new Error(written.problem);
  if (written?.value) options.keyRing.remember(written.value);
  return { sealed, notices: noticesOf(entry, answer.data) };
}
