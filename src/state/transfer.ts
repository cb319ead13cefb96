/**
 * Moving a state as a whole, for `cplane state pull|push|migrate|history`.
 * Pull reads the current state (sealed values stay sealed: no key is needed
 * or used). Push and migrate write a whole state under the destination's lock
 * and refuse anything that could lose work: another account, another lineage,
 * or a serial behind the stored one (after Terraform's `state push`).
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { hostname } from 'node:os';
import type { LockHandle, StateBackend } from './backend.js';
import { StateError } from './errors.js';
import { takeLock } from './store.js';
import type { StateFileContents } from './file-format.js';
import { openBackend } from './open-backend.js';
import type { OpenedBackend, StateLocationOptions } from './open-backend.js';
import { PostgresBackend } from './postgres/index.js';
import { replay } from './replay.js';
import type { StateVersion } from './postgres/index.js';

async function current(backend: StateBackend): Promise<StateFileContents | undefined> {
  const loaded = await backend.load();
  return loaded && replay(loaded, backend.location).contents;
}

async function withBackend<T>(options: StateLocationOptions, work: (opened: OpenedBackend) => Promise<T>): Promise<T> {
  const opened = openBackend(options);
  try {
    return await work(opened);
  } finally {
    await opened.backend.close?.();
  }
}

async function withLock<T>(opened: OpenedBackend, command: string, work: () => Promise<T>, timeoutMs = 0): Promise<T> {
  const info = { id: randomUUID(), pid: process.pid, host: hostname(), time: new Date().toISOString(), command };
  const handle: LockHandle = await takeLock(opened.backend, info, (message) => process.stderr.write(`Note: ${message}\n`), timeoutMs);
  try {
    return await work();
  } finally {
    await opened.backend.unlock(handle);
  }
}

/** The current state at `options`, as stored: sealed values sealed, fingerprints as they are. */
export function pullState(options: StateLocationOptions): Promise<{ location: string; contents: StateFileContents }> {
  return withBackend(options, async ({ backend, location }) => {
    const contents = await current(backend);
    if (!contents)
      throw new StateError(
        'STATE_NOT_FOUND',
        `There is no state at ${location}${backend.absence?.() ? `: ${backend.absence()}` : ''}.`,
        'Check --state, --account and --workspace.',
      );
    return { location, contents };
  });
}

export type WriteOutcome = 'written' | 'unchanged';

/** Writes `contents` as the whole state, or refuses (see the file comment). `expected` is what the caller read, when it did. */
async function writeWhole(opened: OpenedBackend, contents: StateFileContents, command: string): Promise<WriteOutcome> {
  const { backend, location } = opened;
  const stored = await current(backend);
  if (stored) {
    if (stored.account !== contents.account) {
      throw new StateError(
        'STATE_ACCOUNT_MISMATCH',
        `The state at ${location} belongs to account ${stored.account}, not ${contents.account}; nothing was written.`,
        'Each account has its own state: check --account and the file.',
      );
    }
    if (stored.lineage !== contents.lineage) {
      throw new StateError(
        'STATE_LINEAGE_MISMATCH',
        `The state at ${location} has lineage ${stored.lineage}, and the one to write has ${contents.lineage}: they are different histories; nothing was written.`,
        'Write it to an empty location, or remove the state there first if it is truly unused.',
      );
    }
    if (stored.header.keyCheck !== contents.header.keyCheck) {
      throw new StateError(
        'STATE_KEY_WRONG',
        `The state to write was sealed with another state key than the one at ${location}; nothing was written.`,
        'Push only states of the same lineage and key.',
      );
    }
    const same = isDeepStrictEqual({ ...stored, serial: 0 }, { ...contents, serial: 0 });
    if (contents.serial < stored.serial || (contents.serial === stored.serial && !same)) {
      throw new StateError(
        'STATE_SERIAL_BEHIND',
        `The state at ${location} is at serial ${stored.serial}, and the one to write is at ${contents.serial}${contents.serial === stored.serial ? ' with other contents' : ''}: writing it would lose later changes; nothing was written.`,
        'Pull the current state (`cplane state pull`), make your change on it, and push that.',
      );
    }
    if (same && contents.serial === stored.serial) return 'unchanged';
  }
  if (backend instanceof PostgresBackend) await backend.replace(contents, stored?.serial, command);
  else await backend.compact(contents);
  return 'written';
}

export function pushState(
  options: StateLocationOptions,
  contents: StateFileContents,
  command: string,
): Promise<{ location: string; outcome: WriteOutcome }> {
  return withBackend(options, (opened) =>
    withLock(
      opened,
      command,
      async () => ({ location: opened.location, outcome: await writeWhole(opened, contents, command) }),
      options.lockTimeoutMs,
    ),
  );
}

/** Copies the state at `from` to `to` (a file or a URL), both locked meanwhile. The source is left as it was. */
export function migrateState(
  from: StateLocationOptions,
  to: StateLocationOptions,
  command: string,
): Promise<{ from: string; to: string; contents: StateFileContents; outcome: WriteOutcome }> {
  return withBackend(from, (source) =>
    withLock(
      source,
      command,
      async () => {
        const contents = await current(source.backend);
        if (!contents)
          throw new StateError(
            'STATE_NOT_FOUND',
            `There is no state at ${source.location} to migrate.`,
            'Check --state, --account and --workspace.',
          );
        return withBackend({ ...to, account: contents.account }, (target) =>
          withLock(
            target,
            command,
            async () => ({ from: source.location, to: target.location, contents, outcome: await writeWhole(target, contents, command) }),
            to.lockTimeoutMs,
          ),
        );
      },
      from.lockTimeoutMs,
    ),
  );
}

export function stateHistory(options: StateLocationOptions, limit: number): Promise<{ location: string; versions: StateVersion[] }> {
  return withBackend(options, async ({ backend, location }) => {
    if (!(backend instanceof PostgresBackend)) {
      throw new StateError(
        'STATE_NOT_FOUND',
        `The state ${location} is a local file, which keeps no history (only state.json.backup).`,
        'History is kept by the PostgreSQL backend: see `cplane state migrate --to postgres://…`.',
      );
    }
    return { location, versions: await backend.history(limit) };
  });
}
