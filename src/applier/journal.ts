/**
 * The write journal: every write is saved in state (key, exact body, what to
 * record on success) before it is sent, and its answer is recorded with the
 * entry removed in one atomic save. A run that starts with entries left over
 * (a crash, a lost answer) first resends them with the same key and bytes, so
 * the API replays the original result instead of writing twice.
 */
import { registerSecret } from '../text/safe-text.js';
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { classifyError } from '../errors.js';
import type { StateStore } from '../state/index.js';
import type { JournalEntry, ResourceState, SealedValue, StateData, SupersededObject } from '../state/types.js';
import type { WriteEffects } from '../plan-model/index.js';
import type { ApplyEvent, RecoveryResult } from './events.js';
import { idOf, readResultPath } from './template.js';

/** The API keeps the result of an idempotent write for 24 hours (spec, Limits 1). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Saves an entry before its write is sent; an older entry with the same key is replaced, never doubled. */
export async function saveEntry(state: StateStore, entry: JournalEntry): Promise<void> {
  await state.update((draft) => {
    draft.journal = draft.journal.filter((e) => e.idempotencyKey !== entry.idempotencyKey);
    draft.journal.push(entry);
  });
}

export function bodyBytesOf(state: StateStore, entry: JournalEntry): string | undefined {
  if (entry.body === null) return undefined;
  return 'plain' in entry.body ? entry.body.plain : state.crypto.openBody(entry.address, entry.body.sealed);
}

/** Sends an entry's write with its key and exact bytes (the client retries with both unchanged). */
export async function sendEntry(
  client: ApiClient,
  entry: JournalEntry,
  bytes: string | undefined,
): Promise<{ data: unknown; requestId?: string }> {
  const response = await client.send(entry.operation, { path: entry.pathParams, bodyBytes: bytes, idempotencyKey: entry.idempotencyKey });
  return { data: response.data, requestId: response.requestId };
}

/**
 * Records a write's answer: its effects and the removal of its entry, in one
 * save, so a one-time secret is never saved apart from the id it belongs to.
 * Returns the names of the secrets sealed.
 */
export async function recordResult(state: StateStore, entry: JournalEntry, result: unknown, now: Date): Promise<string[]> {
  refuseOtherAnswer(state, entry, result);
  const seal = entry.effects?.seal;
  const sealed: Record<string, SealedValue> = {};
  if (seal) {
    const value = readResultPath(result, seal.result);
    if (typeof value === 'string') {
      // A one-time secret of the answer (a gateway token's plaintext): no later message of this run may show it.
      registerSecret(value);
      sealed[seal.name] = state.crypto.seal(entry.address, value);
    }
  }
  await state.update((draft) => {
    applyEffects(draft, entry, result, sealed, now.toISOString());
    draft.journal = draft.journal.filter((e) => e.id !== entry.id);
  });
  return Object.keys(sealed);
}

/**
 * An answer whose `echoes` differ from the request is about another object (a lying or broken server): an error
 * before anything is recorded. The entry stays in the journal, so the next run resends it with its key and
 * records what the API really made for it.
 */
function refuseOtherAnswer(state: StateStore, entry: JournalEntry, result: unknown): void {
  const echoes = Object.entries(entry.effects?.echoes ?? {});
  if (echoes.length === 0) return;
  const bytes = bodyBytesOf(state, entry);
  const body: unknown = bytes === undefined ? undefined : JSON.parse(bytes);
  for (const [answerPath, asked] of echoes) {
    const expected = 'path' in asked ? entry.pathParams[asked.path] : readResultPath(body, asked.body);
    const answered = readResultPath(result, answerPath);
    if (answered !== expected) {
      throw new Error(
        `the answer of ${entry.operation} is not about what was asked: its ${answerPath} is ${JSON.stringify(answered)}, the request's ${'path' in asked ? asked.path : asked.body} is ${JSON.stringify(expected)}. Nothing of it was recorded; the write stays in the journal and is sent again (with the same idempotency key) by the next apply`,
      );
    }
  }
}

/** The notices of a write's effects that its answer bears out: each text with `{count}` replaced. */
export function noticesOf(entry: JournalEntry, result: unknown): string[] {
  return (entry.effects?.notices ?? []).flatMap(({ list, flag, text }) => {
    const items = readResultPath(result, list);
    const count = Array.isArray(items) ? items.filter((item) => readResultPath(item, flag) === true).length : 0;
    return count > 0 ? [text.replaceAll('{count}', String(count))] : [];
  });
}

/**
 * After a failed write: an answer that says the write did not happen (4xx, or
 * 429 on every attempt) clears the entry; a 5xx or no answer at all may hide a
 * write that did happen, so the entry stays for the next run to resend.
 * Returns whether the entry was kept.
 */
export async function settleFailure(state: StateStore, entry: JournalEntry, error: unknown): Promise<boolean> {
  const definite = ['refused', 'rejected'].includes(classifyError(error));
  if (!definite) return true;
  await removeEntry(state, entry);
  return false;
}

/** Removes the entry of a write that did not happen (refused, never sent, or past the API's retention). */
export async function removeEntry(state: StateStore, entry: JournalEntry): Promise<void> {
  await state.update((draft) => {
    draft.journal = draft.journal.filter((e) => e.id !== entry.id);
  });
}

/** Everything that can fail is worked out before the draft is touched, so a failure leaves it as it was. */
function applyEffects(draft: StateData, entry: JournalEntry, result: unknown, sealed: Record<string, SealedValue>, now: string): void {
  const effects = entry.effects ?? {};
  if (effects.forget) {
    delete draft.resources[entry.address];
    return;
  }
  const existing = draft.resources[entry.address];
  let id: string | undefined;
  if (effects.id) {
    const found =
      'result' in effects.id
        ? readResultPath(result, effects.id.result)
        : 'results' in effects.id
          ? joinedIds(result, effects.id.results)
          : idOf(draft.resources, effects.id.$ref);
    if (typeof found !== 'string' || found === '')
      throw new Error(`the answer of ${entry.operation} has no id at ${JSON.stringify(effects.id)}`);
    id = found;
  }
  const kind = entry.kind ?? existing?.kind;
  if (id !== undefined && existing?.id !== id && !kind) throw new Error(`journal entry for ${entry.address} has no kind`);
  const parents: Record<string, string> = {};
  for (const [name, value] of Object.entries(effects.parents ?? {}))
    parents[name] = typeof value === 'string' ? value : idOf(draft.resources, value.$ref);

  const renewing =
    effects.supersede && existing && id !== undefined && existing.id !== id ? supersededBy(existing, result, effects.supersede) : undefined;

  let resource = existing;
  if (id !== undefined && (!resource || resource.id !== id)) {
    // A new remote object: fingerprints and sealed values of the one it replaces no longer describe it; what the
    // address superseded earlier (and, for a renewal, the object it named until now) still awaits its revocation.
    const superseded = [...(existing?.superseded ?? []), ...(renewing ? [renewing] : [])];
    resource = {
      kind: kind!,
      id,
      inputs: resource?.inputs ?? {},
      fingerprints: {},
      ...(superseded.length > 0 ? { superseded } : {}),
      createdAt: now,
      updatedAt: now,
    };
    draft.resources[entry.address] = resource;
  }
  if (!resource) return;
  if (effects.settleSuperseded !== undefined && resource.superseded) {
    const left = resource.superseded.filter((s) => s.id !== effects.settleSuperseded);
    if (left.length > 0) resource.superseded = left;
    else delete resource.superseded;
  }
  if (effects.parents) resource.parents = { ...resource.parents, ...parents };
  if (Object.keys(sealed).length > 0) resource.sealed = { ...resource.sealed, ...sealed };
  for (const [name, path] of Object.entries(effects.outputs ?? {})) {
    const value = readResultPath(result, path);
    if (typeof value === 'string') resource.outputs = { ...resource.outputs, [name]: value };
  }
  if (entry.fingerprints) resource.fingerprints = { ...resource.fingerprints, ...entry.fingerprints };
  if (entry.inputs) resource.inputs = entry.inputs;
  resource.updatedAt = now;
}

/** The object `existing` names, kept as superseded until the new object's creation time (from the answer) plus the overlap. */
function supersededBy(existing: ResourceState, result: unknown, supersede: NonNullable<WriteEffects['supersede']>): SupersededObject {
  const created = readResultPath(result, supersede.createdAt);
  const at = typeof created === 'string' ? Date.parse(created) : Number.NaN;
  if (!Number.isFinite(at))
    throw new Error(`the answer has no creation time at ${supersede.createdAt}, so the old object's overlap cannot be timed`);
  return {
    id: existing.id,
    ...(existing.parents ? { parents: existing.parents } : {}),
    ...(existing.outputs ? { outputs: existing.outputs } : {}),
    revocableAt: new Date(at + supersede.overlapHours * 3_600_000).toISOString(),
  };
}

export interface ResendOptions {
  state: StateStore;
  client: ApiClient;
  onEvent?: (event: ApplyEvent) => void;
  now?: () => Date;
}

/**
 * Resends, in the order they were saved, the writes a previous run left in the
 * journal, and records their results. Entries older than the API's retention
 * are dropped: their key no longer protects a resend, so a refresh (the plan
 * that follows) reconciles them instead.
 */
export async function resendJournal(options: ResendOptions): Promise<RecoveryResult> {
  const { state, client } = options;
  const now = options.now ?? (() => new Date());
  const emit = options.onEvent ?? (() => undefined);
  const outcome: RecoveryResult = { resent: 0, dropped: [], failed: [] };
  // An entry of an address another apply holds may be the write it is sending right now: never resent here.
  for (const entry of state.data.journal.filter((e) => state.holds(e.address))) {
    if (!(now().getTime() - Date.parse(entry.createdAt) < IDEMPOTENCY_RETENTION_MS)) {
      await removeEntry(state, entry);
      outcome.dropped.push({ address: entry.address, operation: entry.operation, createdAt: entry.createdAt });
      emit({ type: 'journal-dropped', address: entry.address, operation: entry.operation, createdAt: entry.createdAt });
      continue;
    }
    try {
      const { data, requestId } = await sendEntry(client, entry, bodyBytesOf(state, entry));
      await recordResult(state, entry, data, now());
      outcome.resent++;
      const notices = noticesOf(entry, data);
      emit({
        type: 'journal-resent',
        address: entry.address,
        operation: entry.operation,
        outcome: 'done',
        ...(requestId ? { requestId } : {}),
        ...(notices.length > 0 ? { notices } : {}),
      });
    } catch (error) {
      const kept = await settleFailure(state, entry, error);
      const reason = error instanceof Error ? error.message : String(error);
      const requestId = error instanceof ApiError ? error.requestId : undefined;
      outcome.failed.push({ address: entry.address, operation: entry.operation, reason, requestId, kept });
      emit({
        type: 'journal-resent',
        address: entry.address,
        operation: entry.operation,
        outcome: 'failed',
        reason,
        ...(requestId ? { requestId } : {}),
      });
    }
  }
  return outcome;
}

/** An id made of several strings of the answer, joined with "/"; undefined when one is missing. */
function joinedIds(result: unknown, paths: string[]): string | undefined {
  const parts = paths.map((path) => readResultPath(result, path));
  return parts.every((p) => typeof p === 'string' && p !== '') ? parts.join('/') : undefined;
}
