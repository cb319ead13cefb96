/**
 * The state store the planner and the applier use: open a state (locked when
 * it will be written), read it, and change it only through `update`. Updates
 * that arrive while one is being stored are stored together (group commit);
 * each is recorded as a group of changes in the backend's log, with work
 * proportional to what it changed, and the log is folded into a new snapshot
 * once it has grown as large as the state (so the total stays linear) and on close.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { relative, isAbsolute, resolve } from 'node:path';
import { KeyError, keyCheckOf, keyFilePath, keyMatchesCheck, resolveStateKey } from '../crypto/state-key.js';
import type { KdfParams, StateKey } from '../crypto/state-key.js';
import type { ChangeGroup, LoadedState, LockHandle, StateBackend, StateChange } from './backend.js';
import type { OpenPlanRegistry } from './open-plans.js';
import { applyChanges, trackDraft } from './draft.js';
import { changeProblems, replay } from './replay.js';
import { AddressesLockedError, holderText, StateError, StateLockedError } from './errors.js';
import type { Allowance, LockInfo } from './errors.js';
import { openBackend } from './open-backend.js';
import { CURRENT_VERSION } from './migrations.js';
import { writeStateGitignore } from './paths.js';
import { createStateCrypto, resealLegacy, stateKeys } from './state-crypto.js';
import type { StateCrypto, StateKeys } from './state-crypto.js';
import type { StateData, StateFileContents, StateHeader } from './types.js';
import { assertAuthentic, ENTRY_MACS, entryMacKey, macAll, macChanges } from './entry-mac.js';

export interface OpenStateOptions {
  /** The configuration folder; the default state path and relative --state paths start here. */
  configDir: string;
  /** Account id. Required unless `statePath` is given; a state made for one account is refused for another. */
  account?: string;
  /** A state file, or a `postgres://` URL (see open-backend.ts). */
  statePath?: string;
  /** One state per account and workspace; `default` unless named. */
  workspace?: string;
  env: NodeJS.ProcessEnv;
  /** The command line, recorded in the lock so a second writer can say who holds it. */
  command: string;
  /** Who allowed the run, recorded with every version it saves (a backend with history: PostgreSQL). */
  allowance?: Allowance;
  /** Take the lock: needed to call `update`. */
  lock: boolean;
  /**
   * With `lock`: hold only these addresses for the run (an apply of a saved plan), so applies on other addresses
   * run at the same time; the state lock is then taken only around each write (docs/state.md, "Locks").
   */
  addresses?: readonly string[];
  /** How long to wait for a lock another live run holds (`--lock-timeout`), in milliseconds; 0 (the default) fails at once. */
  lockTimeoutMs?: number;
  /** Fail with STATE_NOT_FOUND instead of starting from an empty state. */
  mustExist?: boolean;
  /** Where a note for the user goes (a stale lock taken over); standard error by default. */
  onNotice?: (message: string) => void;
  /** Where the state is kept, instead of the one `statePath` and `workspace` name (a bench's no-op backend). */
  backend?: StateBackend;
}

export interface StateStore {
  /** The current state: read it, never change it (use `update`). Its entries are replaced as updates are stored. */
  readonly data: Readonly<StateData>;
  readonly path: string;
  /** Id of the lock this store holds, when opened with `lock: true`. */
  readonly lockId: string | undefined;
  /** Fingerprints, sealing and record encryption under this state's key (found on first use when opened without the lock). */
  readonly crypto: StateCrypto;
  /** The scrypt parameters of a key derived from CPLANE_PASSPHRASE (not secret): a saved plan records them to find the key again. */
  readonly kdf: KdfParams | undefined;
  /**
   * Applies `mutate` to a draft and stores what it changed as one group
   * (serial + 1) before resolving. Calls that arrive while a group is being
   * stored share the next group; a `mutate` that throws is rejected alone.
   */
  update(mutate: (draft: StateData) => void): Promise<void>;
  /** The open-plan registry kept with this state (open-plans.ts), used before `close`; undefined for a backend without one. */
  readonly openPlans: OpenPlanRegistry | undefined;
  /**
   * Whether this run holds `address`: always, with the whole state's lock; with address locks, only its own.
   * A journal entry of another address may be a write another apply is sending right now: it is never resent here.
   */
  holds(address: string): boolean;
  /** Waits for pending updates, folds the change log into the snapshot and releases the lock. */
  close(): Promise<void>;
}

/** A fold happens once the log holds at least this many changes, or as many as the state has entries. */
const FOLD_MIN_CHANGES = 1000;

function isInside(folder: string, path: string): boolean {
  const rel = relative(resolve(folder), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function emptyState(account: string): StateData {
  return { version: CURRENT_VERSION, account, lineage: randomUUID(), serial: 0, resources: {}, journal: [] };
}

function withoutHeader({ header: _header, ...data }: StateFileContents): StateData {
  return data;
}

/**
 * The state key for the configuration in `configDir` (see crypto/state-key.ts for the order); the key file is
 * created when there is none and no state exists yet (`existing` is the header of the state, when there is one).
 */
export function stateKeyFor(configDir: string, env: NodeJS.ProcessEnv, existing?: StateHeader): StateKey {
  if (!env.CPLANE_STATE_KEY && !env.CPLANE_PASSPHRASE) {
    const file = keyFilePath(env);
    if (isInside(configDir, file)) {
      throw new StateError(
        'STATE_KEY_IN_REPO',
        `The state key file would be ${file}, inside the configuration folder, where it could be committed with it.`,
        'Point XDG_CONFIG_HOME outside the repository, or set CPLANE_STATE_KEY or CPLANE_PASSPHRASE.',
      );
    }
  }
  try {
    return resolveStateKey(env, { existing: existing ? { kdf: existing.kdf } : undefined });
  } catch (error) {
    if (error instanceof KeyError) throw new StateError(error.code, error.message, error.hint, { cause: error });
    throw error;
  }
}

function checkKey(key: StateKey, header: StateHeader, path: string): void {
  const entryMacs = header.entryMacs === ENTRY_MACS;
  if (keyMatchesCheck(key.key, header.keyCheck, entryMacs)) return;
  if (!entryMacs && keyMatchesCheck(key.key, header.keyCheck, true)) {
    throw new StateError(
      'STATE_ENTRY_FORGED',
      `The state ${path} was written with authenticated entries, but its header no longer says so: someone removed the entries' MACs. Nothing was opened or written.`,
      'Restore the state from a copy you trust (`cplane state history` lists the versions of a PostgreSQL state).',
    );
  }
  const used = { env: 'CPLANE_STATE_KEY', passphrase: 'CPLANE_PASSPHRASE', keyfile: `the key file ${key.keyFile ?? ''}` }[key.source];
  const expected = header.kdf ? 'a key derived from a passphrase (CPLANE_PASSPHRASE)' : 'a 32-byte key (CPLANE_STATE_KEY or a key file)';
  throw new StateError(
    'STATE_KEY_WRONG',
    `The state key from ${used} is not the key the state ${path} was written with (it expects ${expected}). Nothing was opened or written.`,
    'Use the key or passphrase this state was created with.',
  );
}

function describeHolder(holder: LockInfo): string {
  return holderText(holder);
}

/** Takes the address locks; holders that were gone are taken over, with a note naming them. */
async function lockAddressesNow(
  backend: StateBackend,
  info: LockInfo,
  addresses: readonly string[],
  notice: (message: string) => void,
): Promise<LockHandle> {
  const { takenOver, ...handle } = await backend.lockAddresses!(info, addresses);
  for (const hold of takenOver)
    notice(
      `Took over ${hold.addresses.length} address lock(s) of ${backend.location}: their holder (${describeHolder(hold.holder)}) is no longer running.`,
    );
  return handle;
}

/** Takes the lock; a stale one (its holder was a process on this host that no longer runs) is taken over with a note. */
async function takeLockNow(backend: StateBackend, info: LockInfo, notice: (message: string) => void): Promise<LockHandle> {
  try {
    return await backend.lock(info);
  } catch (error) {
    if (!(error instanceof StateLockedError) || !error.stale) throw error;
    // Another run may take it over at the same moment: then its lock id differs and our second attempt names it.
    await backend.forceUnlock(error.holder.id).catch(() => undefined);
    const handle = await backend.lock(info);
    notice(`Took over the state lock of ${backend.location}: its holder (${describeHolder(error.holder)}) is no longer running.`);
    return handle;
  }
}

/** Polling interval while waiting for the lock: short at first, then at most every 2 s. */
const LOCK_POLL_MS = [100, 250, 500, 1000, 2000];

/**
 * Takes the lock, waiting up to `timeoutMs` while another run holds it (as Terraform's -lock-timeout),
 * with one note saying who is waited for; then fails naming the holder, as without a timeout.
 */
export async function takeLock(
  backend: StateBackend,
  info: LockInfo,
  notice: (message: string) => void,
  timeoutMs: number,
  lockNow: () => Promise<LockHandle> = () => takeLockNow(backend, info, notice),
): Promise<LockHandle> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await lockNow();
    } catch (error) {
      if (!(error instanceof StateLockedError) || Date.now() >= deadline) throw error;
      if (attempt === 0) notice(waitingNote(error, timeoutMs, backend.location));
      const pause = Math.min(LOCK_POLL_MS[Math.min(attempt, LOCK_POLL_MS.length - 1)]!, Math.max(0, deadline - Date.now()));
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

function waitingNote(error: StateLockedError, timeoutMs: number, location: string): string {
  const seconds = Math.ceil(timeoutMs / 1000);
  if (!(error instanceof AddressesLockedError))
    return `Waiting up to ${seconds} s for the state lock of ${location}, held by ${describeHolder(error.holder)}.`;
  const count = error.held.reduce((sum, h) => sum + h.addresses.length, 0);
  return `Waiting up to ${seconds} s for ${count} address(es) of ${location}, held by ${error.held.map((h) => describeHolder(h.holder)).join('; ')}.`;
}

function noticeOf(options: OpenStateOptions): (message: string) => void {
  return options.onNotice ?? ((message: string) => process.stderr.write(`Note: ${message}\n`));
}

export async function openState(options: OpenStateOptions): Promise<StateStore> {
  const opened = options.backend
    ? { backend: options.backend, location: options.backend.location, inStateFolder: false }
    : openBackend(options);
  const { backend, location: path } = opened;
  const notice = noticeOf(options);
  let handle: LockHandle | undefined;
  if (options.lock) {
    if (opened.inStateFolder) await writeStateGitignore(options.configDir);
    const info: LockInfo = {
      id: randomUUID(),
      pid: process.pid,
      host: hostname(),
      time: new Date().toISOString(),
      command: options.command,
      ...(options.allowance ? { allowance: options.allowance } : {}),
    };
    const addresses = options.addresses && backend.lockAddresses ? options.addresses : undefined;
    const lockNow = addresses ? () => lockAddressesNow(backend, info, addresses, notice) : undefined;
    // A refused lock must still end the backend's connections (a database's), or the process never exits.
    handle = await takeLock(backend, info, notice, options.lockTimeoutMs ?? 0, lockNow).catch(async (error: unknown) => {
      await backend.close?.();
      throw error;
    });
  }
  const held = handle && options.addresses && backend.lockAddresses ? new Set(options.addresses) : undefined;
  try {
    return await openLoaded(options, backend, path, handle, held);
  } catch (error) {
    if (handle && held) await backend.unlockAddresses?.(handle);
    else if (handle) await backend.unlock(handle);
    await backend.close?.();
    throw error;
  }
}

async function openLoaded(
  options: OpenStateOptions,
  backend: StateBackend,
  path: string,
  handle: LockHandle | undefined,
  held: ReadonlySet<string> | undefined,
): Promise<StateStore> {
  const loaded = await backend.load();
  const { existing, account } = checkLoaded(options, backend, path, loaded);
  const replayed = loaded ? replay(loaded, backend.location) : undefined;
  const findKey = keyFinder(options, existing, path);
  // A writer (or a new state) needs the key now: a wrong key must be refused before anything is written.
  // A reader finds it on first use, so commands that show nothing secret work without it.
  if (handle || !existing) findKey();
  const header: StateHeader = existing?.header ? { ...existing.header } : newHeader(findKey());
  const data: StateData = replayed ? withoutHeader(replayed.contents) : emptyState(account);
  let keys: StateKeys | undefined;
  const keysOnce = () => (keys ??= stateKeys(findKey().key));
  const binding = { account: data.account, lineage: data.lineage };
  let macKey: Uint8Array | undefined;
  const macKeyOnce = () => (macKey ??= entryMacKey(findKey().key));
  const upgrading = data.resealFrom !== undefined;
  if (upgrading && handle) resealAll(data, keysOnce(), binding);
  const authenticating = authenticateEntries({ existing, header, data, path, writer: handle !== undefined, binding, macKeyOnce, findKey });
  // A reader of a format-1 state opens its values the old way; it never stores any.
  const crypto = createStateCrypto(
    keysOnce,
    upgrading && !handle ? 'address-only' : binding,
    (address) => data.resources[address]?.fingerprintAddress ?? address,
  );
  const authenticate = (changes: StateChange[]) => macChanges(macKeyOnce(), binding, changes);
  // What other applies wrote meanwhile is checked as the state was when it was opened.
  const shared = held ? { held, verify: (other: StateData) => assertAuthentic(macKeyOnce(), binding, other, path) } : undefined;
  const store = new BackendStateStore(backend, path, handle, header, data, replayed?.changes ?? 0, crypto, authenticate, {
    env: options.env,
    notice: noticeOf(options),
    shared,
  });
  // Written at once so the passphrase salt, and thus every fingerprint made from now on, is fixed from the first use;
  // and an upgraded state at once in its new format.
  if ((!existing || upgrading || authenticating) && handle) await store.exclusively(() => backend.compact({ ...data, header }));
  return store;
}

/** The loaded state checked against the options: it exists when it must, belongs to the account, and there is an account. */
function checkLoaded(options: OpenStateOptions, backend: StateBackend, path: string, loaded: LoadedState | undefined) {
  if (!loaded && options.mustExist) {
    throw new StateError(
      'STATE_NOT_FOUND',
      `There is no state at ${path}${backend.absence?.() ? `: ${backend.absence()}` : ''}.`,
      'Check --account or --state. A state is created by the first `cplane apply` for an account.',
    );
  }
  const existing = loaded?.snapshot;
  const account = existing?.account ?? options.account;
  if (existing && options.account && existing.account !== options.account) {
    throw new StateError(
      'STATE_ACCOUNT_MISMATCH',
      `The state ${path} belongs to account ${existing.account}, not ${options.account}.`,
      'Each account has its own state: check --account / CPLANE_ACCOUNT, or the --state path.',
    );
  }
  if (!account)
    throw new StateError(
      'STATE_ACCOUNT_MISSING',
      `There is no state at ${path}, and no account to create one for.`,
      'Pass --account ID or set CPLANE_ACCOUNT.',
    );
  return { existing, account };
}

/** Finds the state key once, checked against the existing state's header. */
function keyFinder(options: OpenStateOptions, existing: StateFileContents | undefined, path: string): () => StateKey {
  let key: StateKey | undefined;
  return () => {
    if (!key) {
      const found = stateKeyFor(options.configDir, options.env, existing?.header);
      if (existing) checkKey(found, existing.header, path);
      // Made silently, it would be lost with the machine: the one line says where it is and that it must be kept.
      if (found.created) noticeOf(options)(createdKeyNotice(found.keyFile!));
      key = found;
    }
    return key;
  };
}

function newHeader(key: StateKey): StateHeader {
  return { keyCheck: keyCheckOf(key.key, true), ...(key.kdf ? { kdf: key.kdf } : {}), entryMacs: ENTRY_MACS };
}

/**
 * Every entry must carry its MAC: a writer, and a reader that has the key, refuses a forged entry before anything else.
 * A state written before entries were authenticated is authenticated by its writer (true: it must be stored at once).
 */
function authenticateEntries(input: {
  existing: StateFileContents | undefined;
  header: StateHeader;
  data: StateData;
  path: string;
  writer: boolean;
  binding: { account: string; lineage: string };
  macKeyOnce: () => Uint8Array;
  findKey: () => StateKey;
}): boolean {
  const { header, data, path, binding, macKeyOnce } = input;
  if (header.entryMacs === ENTRY_MACS) {
    // A reader without the key shows nothing it could be misled into doing.
    const macKeyIfAny = input.writer ? macKeyOnce() : tryKey(macKeyOnce);
    if (macKeyIfAny) assertAuthentic(macKeyIfAny, binding, data, path);
    return false;
  }
  if (input.existing === undefined || !input.writer) return false;
  // Its resources are trusted once, as its writer upgrades it; a pending write could have been added by anyone,
  // so one is never resent unauthenticated.
  if (data.journal.length > 0) {
    throw new StateError(
      'STATE_ENTRY_FORGED',
      `The state ${path} was written by an older cplane and holds ${data.journal.length} pending write(s) that cannot be authenticated: ${data.journal.map((e) => `${e.operation} of ${e.address}`).join('; ')}. Nothing was sent or written.`,
      'Finish them with the cplane version that saved them (`cplane apply`), then run this one; or restore the state from a copy without pending writes.',
    );
  }
  macAll(macKeyOnce(), binding, data);
  header.entryMacs = ENTRY_MACS;
  header.keyCheck = keyCheckOf(input.findKey().key, true);
  return true;
}

/** The line a run that created the key file prints (stderr). */
export const createdKeyNotice = (path: string): string =>
  `created the state key ${path} (mode 0600): keep it and back it up with your other secrets; without it this state's sealed values cannot be opened.`;

/** The key from `find`, or undefined when a reader has none (or a wrong one): then it reads without authenticating. */
function tryKey(find: () => Uint8Array): Uint8Array | undefined {
  try {
    return find();
  } catch (error) {
    if (error instanceof StateError && error.code.startsWith('STATE_KEY_')) return undefined;
    throw error;
  }
}

/** How a run holding addresses writes beside others: the addresses it holds, and the check of what others wrote. */
interface SharedWriting {
  held: ReadonlySet<string>;
  verify: (data: StateData) => void;
}

/** A write refused this many times in a row because others wrote first gives up (each retry catches up first). */
const CATCH_UP_TRIES = 50;

interface Pending {
  mutate: (draft: StateData) => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The store over any backend (the local file, PostgreSQL): group commit, the log, folds and the lock. */
class BackendStateStore implements StateStore {
  private pending: Pending[] = [];
  private storing: Promise<void> | undefined;
  private closed = false;
  private foldError: unknown;
  private readonly releaseOnExit: () => void;
  private readonly foldEvery: number | undefined;
  private readonly notice: (message: string) => void;
  private readonly shared: SharedWriting | undefined;
  /** Fold once the log holds this many changes: as many as the state has entries (so folding stays linear in total). */
  private foldAt: number;

  constructor(
    private readonly backend: StateBackend,
    readonly path: string,
    private readonly handle: LockHandle | undefined,
    private readonly header: StateHeader,
    private readonly current: StateData,
    /** Changes recorded since the snapshot, i.e. in the log. */
    private sinceFold: number,
    readonly crypto: StateCrypto,
    /** Adds its MAC to every entry a change writes. */
    private readonly authenticate: (changes: StateChange[]) => StateChange[],
    options: {
      env: NodeJS.ProcessEnv;
      notice: (message: string) => void;
      /** Set when this run holds addresses, not the whole state: others write meanwhile (docs/state.md, "Locks"). */
      shared: SharedWriting | undefined;
    },
  ) {
    this.notice = options.notice;
    this.shared = options.shared;
    const every = Number(options.env.CPLANE_STATE_FOLD_EVERY);
    this.foldEvery = Number.isInteger(every) && every > 0 ? every : undefined;
    this.foldAt = this.nextFoldAt();
    // A process that ends without close() (an uncaught error, process.exit) still releases its lock.
    this.releaseOnExit = () => this.handle?.releaseAtExit?.();
    if (handle) process.on('exit', this.releaseOnExit);
  }

  get data(): Readonly<StateData> {
    return this.current;
  }

  get lockId(): string | undefined {
    return this.handle?.id;
  }

  get openPlans(): OpenPlanRegistry | undefined {
    return this.backend.openPlans?.();
  }

  get kdf(): KdfParams | undefined {
    return this.header.kdf;
  }

  holds(address: string): boolean {
    return this.shared ? this.shared.held.has(address) : this.handle !== undefined;
  }

  /**
   * Runs `write` (an append or a compaction) while no other writer writes; with address locks, the state lock is
   * taken for just this, and a write refused because another apply wrote first (its serial moved on) is tried again
   * on the state caught up with theirs. Their changes are whole entries of other addresses, so the two commute.
   */
  async exclusively(write: () => Promise<void>): Promise<void> {
    const shared = this.shared;
    if (!shared) return write();
    const attempt = async () => {
      for (let tries = 1; ; tries++) {
        try {
          return await write();
        } catch (error) {
          if (!(error instanceof StateError && error.code === 'STATE_CHANGED') || tries >= CATCH_UP_TRIES) throw error;
          await this.catchUp(shared);
        }
      }
    };
    await (this.backend.exclusive ? this.backend.exclusive(this.handle!.info, attempt) : attempt());
  }

  /** Reads the stored state again and takes what others wrote since (whole entries of addresses this run does not hold). */
  private async catchUp(shared: SharedWriting): Promise<void> {
    const loaded = await this.backend.load();
    const replayed = loaded ? replay(loaded, this.backend.location) : undefined;
    if (!replayed || replayed.contents.lineage !== this.current.lineage)
      throw new StateError(
        'STATE_CHANGED',
        `The state ${this.path} was replaced by another run while this one held some of its addresses; nothing more was written.`,
        'Run the command again: the journal lets the next apply finish what this one started.',
      );
    const next = withoutHeader(replayed.contents);
    shared.verify(next);
    Object.assign(this.current, next);
    this.sinceFold = replayed.changes;
  }

  update(mutate: (draft: StateData) => void): Promise<void> {
    if (!this.handle || this.closed) {
      return Promise.reject(
        new StateError(
          'STATE_READ_ONLY',
          `The state ${this.path} was opened without its lock (or closed); it cannot be changed.`,
          'This is a bug in cplane: open the state with lock: true to change it.',
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ mutate, resolve, reject });
      if (!this.storing) this.storing = this.storePending();
    });
  }

  private async storePending(): Promise<void> {
    while (this.pending.length > 0) {
      // Group commit: the updates made in this turn of the event loop (the answers that arrived together)
      // join one group, written and synced once, instead of one group each.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = this.pending;
      this.pending = [];
      // Each mutation runs on the state as the ones before it in the batch left it, and is undone at once:
      // the state changes only after the group is stored. One that throws is rejected alone.
      const failures = new Map<Pending, unknown>();
      const changes: StateChange[] = [];
      const undos: (() => void)[] = [];
      for (const item of batch) {
        try {
          const tracked = trackDraft(this.current);
          item.mutate(tracked.draft);
          const mine = this.authenticate(tracked.changes());
          const problems = mine.flatMap(changeProblems);
          if (problems.length > 0) throw new Error(`cplane tried to store a state change that breaks its schema: ${problems.join('; ')}`);
          undos.push(applyChanges(this.current, mine));
          changes.push(...mine);
        } catch (error) {
          failures.set(item, error);
        }
      }
      for (const undo of undos.reverse()) undo();
      try {
        await this.record(changes);
      } catch (error) {
        for (const item of batch) item.reject(error);
        continue;
      }
      for (const item of batch) {
        if (failures.has(item)) item.reject(failures.get(item));
        else item.resolve();
      }
      if (this.sinceFold >= this.foldAt) {
        // The changes are stored already; a failed fold is tried again at close.
        await this.fold().catch((error: unknown) => (this.foldError = error));
      }
    }
    // Cleared in the same turn as the last check of `pending`, so an update made after it starts a new run.
    this.storing = undefined;
  }

  private async record(changes: StateChange[]): Promise<void> {
    if (changes.length === 0) return;
    await this.exclusively(async () => {
      const group: ChangeGroup = { serial: this.current.serial + 1, changes };
      await this.backend.append(group);
      applyChanges(this.current, changes);
      this.current.serial = group.serial;
      this.sinceFold += changes.length;
    });
  }

  private nextFoldAt(): number {
    return this.foldEvery ?? Math.max(FOLD_MIN_CHANGES, Object.keys(this.current.resources).length);
  }

  private async fold(): Promise<void> {
    await this.exclusively(async () => {
      // Beside other writers, the log may hold their groups after ours: a fold takes them in first.
      if (this.shared) await this.catchUp(this.shared);
      await this.backend.compact({ ...this.current, header: this.header });
    });
    this.sinceFold = 0;
    this.foldAt = this.nextFoldAt();
    this.foldError = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      while (this.storing) await this.storing;
      if (this.handle && (this.sinceFold > 0 || this.foldError !== undefined)) {
        // Every change is safe in the log already: a fold that fails is reported, and the next writer folds.
        await this.fold().catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          this.notice(
            `The change log of ${this.path} was not folded into it: ${reason} Its changes are kept in the log; the next command that writes the state folds them.`,
          );
        });
      }
    } finally {
      if (this.handle) {
        process.off('exit', this.releaseOnExit);
        if (this.shared) await this.backend.unlockAddresses?.(this.handle);
        else await this.backend.unlock(this.handle);
      }
      await this.backend.close?.();
    }
  }
}

/**
 * The migration from state format 1: every sealed value is bound to account and lineage too. (A format-1
 * state's pending writes are never resent: they carry no MAC, so the store refuses them first.)
 */
function resealAll(data: StateData, keys: StateKeys, binding: { account: string; lineage: string }): void {
  for (const [address, resource] of Object.entries(data.resources)) {
    if (!resource.sealed) continue;
    resource.sealed = Object.fromEntries(
      Object.entries(resource.sealed).map(([name, sealed]) => [name, resealLegacy(keys, binding, address, 'value', sealed)]),
    );
  }
  delete data.resealFrom;
}
