/**
 * The state store the planner and the applier use: open a state (locked when
 * it will be written), read it, change it only through `update`, which saves
 * atomically and runs one change at a time, and seal or fingerprint secrets
 * with the state key.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { relative, isAbsolute, resolve } from 'node:path';
import { deriveSubkey, keyCheckOf, keyFilePath, keyMatchesCheck, resolveStateKey } from '../crypto/state-key.js';
import type { StateKey } from '../crypto/state-key.js';
import { fingerprint } from '../crypto/fingerprint.js';
import { SealError, openSecret, sealSecret } from '../crypto/seal.js';
import { decryptRecordValue, encryptRecordValue, recordKek } from '../crypto/record-value.js';
import type { EncryptedValueT } from '../api/shapes.js';
import type { LockHandle, StateBackend } from './backend.js';
import { StateError } from './errors.js';
import type { LockInfo } from './errors.js';
import type { StateFileContents, StateHeader } from './file-format.js';
import { applyGroups, changesBetween } from './change-groups.js';
import { LocalFileBackend } from './local-file-backend.js';
import { CURRENT_VERSION } from './migrations.js';
import { openBackend } from './open-backend.js';
import { stateFolder, writeStateGitignore } from './paths.js';
import type { SealedValue, StateData } from './types.js';
import { schemaProblems } from './validate.js';

export interface OpenStateOptions {
  /** The configuration folder; the default state path and relative --state paths start here. */
  configDir: string;
  /** Account id. Required unless `statePath` is given; a state made for one account is refused for another. */
  account?: string;
  /** A state file path, or a `postgres://` URL. */
  statePath?: string;
  /** Workspace (default `default`): one state per account and workspace. */
  workspace?: string;
  env: NodeJS.ProcessEnv;
  /** The command line, recorded in the lock so a second writer can say who holds it. */
  command: string;
  /** Take the lock: needed to call `update`. */
  lock: boolean;
  /** Fail with STATE_NOT_FOUND instead of starting from an empty state. */
  mustExist?: boolean;
}

export interface StateStore {
  /** The current state: read it, never change it (use `update`). Replaced by a new object on every update. */
  readonly data: Readonly<StateData>;
  readonly path: string;
  /** Id of the lock this store holds, when opened with `lock: true`. */
  readonly lockId: string | undefined;
  /** Applies `mutate` to a copy, increments `serial` and saves atomically. Calls run one at a time, in call order. */
  update(mutate: (draft: StateData) => void): Promise<void>;
  /** HMAC-SHA256 (hex) of a write-only value, keyed by the state key and bound to `${address}:${field}`. */
  fingerprint(address: string, field: string, value: string): string;
  /** Seals a one-time secret of `address`; it opens only for the same address and key. */
  seal(address: string, plaintext: string): SealedValue;
  open(address: string, sealed: SealedValue): string;
  /** Seals the exact body bytes of a journal entry for `address`. */
  sealBody(address: string, bytes: string): SealedValue;
  openBody(address: string, sealed: SealedValue): string;
  /** Encrypts a record value on the client into the API's EncryptedValue, under a key derived from the state key. */
  encryptRecordValue(plaintext: string): EncryptedValueT;
  decryptRecordValue(value: EncryptedValueT): string;
  /** Waits for pending updates and releases the lock. */
  close(): Promise<void>;
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(resolve(folder), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function emptyState(account: string): StateData {
  return { version: CURRENT_VERSION, account, lineage: randomUUID(), serial: 0, resources: {}, journal: [] };
}

function resolveKey(options: OpenStateOptions, existing: StateFileContents | undefined): StateKey {
  if (!options.env.CPLANE_STATE_KEY && !options.env.CPLANE_PASSPHRASE) {
    const file = keyFilePath(options.env);
    if (isInside(options.configDir, file)) {
      throw new StateError(
        'STATE_KEY_IN_REPO',
        `The state key file would be ${file}, inside the configuration folder, where it could be committed with it.`,
        'Point XDG_CONFIG_HOME outside the repository, or set CPLANE_STATE_KEY or CPLANE_PASSPHRASE.',
      );
    }
  }
  return resolveStateKey(options.env, { existing: existing ? { kdf: existing.header.kdf } : undefined });
}

function checkKey(key: StateKey, header: StateHeader, path: string): void {
  if (keyMatchesCheck(key.key, header.keyCheck)) return;
  const used = { env: 'CPLANE_STATE_KEY', passphrase: 'CPLANE_PASSPHRASE', keyfile: `the key file ${key.keyFile ?? ''}` }[key.source];
  const expected = header.kdf ? 'a key derived from a passphrase (CPLANE_PASSPHRASE)' : 'a 32-byte key (CPLANE_STATE_KEY or a key file)';
  throw new StateError(
    'STATE_KEY_WRONG',
    `The state key from ${used} is not the key the state ${path} was written with (it expects ${expected}). Nothing was opened or written.`,
    'Use the key or passphrase this state was created with.',
  );
}

export async function openState(options: OpenStateOptions): Promise<StateStore> {
  const { backend, location: path, release } = openBackend(options);
  let handle: LockHandle | undefined;
  try {
    if (options.lock) {
      if (backend instanceof LocalFileBackend && isInside(stateFolder(options.configDir), path)) await writeStateGitignore(options.configDir);
      const info: LockInfo = { id: randomUUID(), pid: process.pid, host: hostname(), time: new Date().toISOString(), command: options.command };
      handle = await backend.lock(info);
    }
    return await openLoaded(options, backend, path, handle, release);
  } catch (error) {
    if (handle) await backend.unlock(handle);
    await release();
    throw error;
  }
}

async function openLoaded(options: OpenStateOptions, backend: StateBackend, path: string, handle: LockHandle | undefined, release: () => Promise<void>): Promise<StateStore> {
  const loaded = await backend.load();
  const existing = loaded && applyGroups(loaded.snapshot, loaded.groups);
  if (!existing && options.mustExist) {
    throw new StateError(
      'STATE_NOT_FOUND',
      `There is no state at ${path}.`,
      'Check --account or --state. A state is created by the first `cplane apply` for an account.',
    );
  }
  const account = existing?.account ?? options.account;
  if (existing && options.account && existing.account !== options.account) {
    throw new StateError(
      'STATE_ACCOUNT_MISMATCH',
      `The state ${path} belongs to account ${existing.account}, not ${options.account}.`,
      'Each account has its own state: check --account / CPLANE_ACCOUNT, or the --state path.',
    );
  }
  if (!account) throw new StateError('STATE_ACCOUNT_MISSING', `There is no state at ${path}, and no account to create one for.`, 'Pass --account ID or set CPLANE_ACCOUNT.');
  const key = resolveKey(options, existing);
  if (existing) checkKey(key, existing.header, path);
  const header: StateHeader = existing?.header ?? { keyCheck: keyCheckOf(key.key), ...(key.kdf ? { kdf: key.kdf } : {}) };
  const data = existing ? withoutHeader(existing) : emptyState(account);
  // Written at once so the passphrase salt, and thus every fingerprint made from now on, is fixed from the first use.
  if (!existing && handle) await backend.compact({ ...data, header });
  return new LocalStateStore(backend, path, handle, header, data, release, {
    seal: deriveSubkey(key.key, 'seal'),
    fingerprint: deriveSubkey(key.key, 'fingerprint'),
    record: recordKek(key.key),
  });
}

function withoutHeader(contents: StateFileContents): StateData {
  const { header: _header, ...data } = contents;
  return data;
}

class LocalStateStore implements StateStore {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly releaseOnExit: () => void;

  constructor(
    private readonly backend: StateBackend,
    readonly path: string,
    private readonly handle: LockHandle | undefined,
    private readonly header: StateHeader,
    private current: StateData,
    private readonly release: () => Promise<void>,
    private readonly keys: { seal: Uint8Array; fingerprint: Uint8Array; record: Uint8Array },
  ) {
    // A process that ends without close() (an uncaught error, process.exit) still releases its lock.
    this.releaseOnExit = () => {
      if (!(this.backend instanceof LocalFileBackend) || !this.handle) return;
      try {
        const info = JSON.parse(readFileSync(this.backend.lockPath, 'utf8')) as LockInfo;
        if (info.id === this.handle.id) unlinkSync(this.backend.lockPath);
      } catch {
        // Already gone or unreadable: nothing of ours to remove.
      }
    };
    if (handle) process.on('exit', this.releaseOnExit);
  }

  get data(): Readonly<StateData> {
    return this.current;
  }

  get lockId(): string | undefined {
    return this.handle?.id;
  }

  update(mutate: (draft: StateData) => void): Promise<void> {
    if (!this.handle || this.closed) {
      return Promise.reject(new StateError('STATE_READ_ONLY', `The state ${this.path} was opened without its lock (or closed); it cannot be changed.`, 'This is a bug in cplane: open the state with lock: true to change it.'));
    }
    const run = this.queue.then(() => this.apply(mutate));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async apply(mutate: (draft: StateData) => void): Promise<void> {
    const before = this.current;
    const draft = structuredClone(before);
    mutate(draft);
    if (draft.account !== before.account || draft.lineage !== before.lineage || draft.version !== before.version) {
      throw new Error('a state update may not change account, lineage or version');
    }
    draft.serial = before.serial + 1;
    const contents: StateFileContents = { ...draft, header: this.header };
    const problems = schemaProblems(contents);
    if (problems.length > 0) throw new Error(`cplane tried to save a state that breaks its schema: ${problems.join('; ')}`);
    await this.backend.append({ serial: draft.serial, changes: changesBetween(before, draft) });
    this.current = draft;
  }

  fingerprint(address: string, field: string, value: string): string {
    const context = this.current.resources[address]?.fingerprintAddress ?? address;
    return fingerprint(this.keys.fingerprint, value, `${context}:${field}`);
  }

  seal(address: string, plaintext: string): SealedValue {
    return sealSecret(this.keys.seal, plaintext, address);
  }

  open(address: string, sealed: SealedValue): string {
    return this.openWith(address, sealed, address);
  }

  sealBody(address: string, bytes: string): SealedValue {
    return sealSecret(this.keys.seal, bytes, `journal:${address}`);
  }

  openBody(address: string, sealed: SealedValue): string {
    return this.openWith(address, sealed, `journal:${address}`);
  }

  encryptRecordValue(plaintext: string): EncryptedValueT {
    return encryptRecordValue(this.keys.record, plaintext);
  }

  decryptRecordValue(value: EncryptedValueT): string {
    return decryptRecordValue(this.keys.record, value);
  }

  private openWith(address: string, sealed: SealedValue, aad: string): string {
    try {
      return openSecret(this.keys.seal, sealed, aad);
    } catch (error) {
      if (!(error instanceof SealError)) throw error;
      throw new StateError(
        'STATE_SEALED_VALUE',
        `A sealed value of ${address} does not open: it was sealed for another address or altered.`,
        'Sealed values cannot be moved by editing the file; use `cplane state mv` to rename an address.',
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    if (this.handle) {
      process.off('exit', this.releaseOnExit);
      await this.backend.unlock(this.handle);
    }
    await this.release();
  }
}
