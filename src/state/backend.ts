/**
 * Where a state is kept. The store talks only to this interface, so a shared
 * backend (PostgreSQL rows, an object store with a lock table) can be added
 * without touching the planner or the applier. The local file (a snapshot
 * `state.json` plus an append-only change log beside it) is the first one.
 *
 * A state is a snapshot at some serial followed by groups of changes, each
 * group bringing the state to the next serial. Recording a write costs what
 * the write changed (one `append`), never what the state holds; `compact`
 * folds the groups into a new snapshot now and then.
 */
import type { LockInfo } from './errors.js';
import type { StateFileContents } from './file-format.js';
import type { JournalEntry, ResourceState } from './types.js';
import type { OpenPlanRegistry } from './open-plans.js';
import type { AddressLockResult } from './address-locks.js';

export interface LockHandle {
  id: string;
  info: LockInfo;
  /** Releases the lock synchronously while the process exits without closing the store (when the backend can). */
  releaseAtExit?(): void;
}

/**
 * One change of a state, naming the whole new value of one entry (never a
 * patch), so applying a change twice gives the same state as applying it once.
 */
export type StateChange =
  | { type: 'resource'; address: string; resource: ResourceState }
  | { type: 'resource-removed'; address: string }
  | { type: 'journal'; entry: JournalEntry }
  | { type: 'journal-removed'; id: string };

/** Changes recorded together (atomically): they bring the state from `serial - 1` to `serial`. */
export interface ChangeGroup {
  serial: number;
  changes: StateChange[];
}

export interface LoadedState {
  /** The last compacted snapshot, with the header. */
  snapshot: StateFileContents;
  /** Groups recorded after the snapshot, in order: serials snapshot.serial + 1, + 2, … without gaps. */
  groups: ChangeGroup[];
}

export interface StateBackend {
  /** Where the state lives, for messages (a file path, a URL without its password). */
  readonly location: string;
  /**
   * The stored state, or undefined when there is none yet. Groups already
   * covered by the snapshot are left out; a group that was being written when
   * its writer died (a torn record) was never acknowledged and is left out too.
   */
  load(): Promise<LoadedState | undefined>;
  /**
   * Records one group durably before resolving (append plus fdatasync; one row
   * insert in a database). Its cost is proportional to the group, not to the
   * state. Compare-and-swap: `group.serial` must be exactly one more than the
   * last serial stored (snapshot or group), else it throws StateError
   * STATE_CHANGED and records nothing. Requires the lock or address locks.
   */
  append(group: ChangeGroup): Promise<void>;
  /**
   * Stores `snapshot` as the new base and drops the groups it covers
   * (serial ≤ snapshot.serial). Also creates a new state (with serial 0) when
   * none exists. Safe to be killed at any point: a later `load` sees the old
   * base with all its groups, or the new base with the groups after it. Throws
   * STATE_CHANGED when `snapshot.serial` is below the stored base or above the
   * last stored serial. Requires the lock or address locks.
   */
  compact(snapshot: StateFileContents): Promise<void>;
  /** Takes the lock at once or throws StateLockedError naming the holder (and whether it is stale); never waits. */
  lock(info: LockInfo): Promise<LockHandle>;
  /** Releases a lock taken with `lock`; does nothing if it was cleared meanwhile. */
  unlock(handle: LockHandle): Promise<void>;
  /** Removes the lock whose id is `id` (whoever holds it), state lock or address locks, and returns what it said. */
  forceUnlock(id: string): Promise<LockInfo>;
  /**
   * Takes `holder`'s locks on `addresses` for its run, all or none, and never waits (address-locks.ts). Throws
   * AddressesLockedError naming the held addresses and their holders, or StateLockedError when a run holds the
   * whole state. A holder that is gone is taken over. While any address is held, `lock` is refused the same way.
   */
  lockAddresses?(holder: LockInfo, addresses: readonly string[]): Promise<LockHandle & AddressLockResult>;
  /** Releases the address locks taken with `lockAddresses`; does nothing if they were cleared meanwhile. */
  unlockAddresses?(handle: LockHandle): Promise<void>;
  /**
   * Runs `work` while no other writer writes: the short state lock a run holding addresses takes around each
   * `append` and `compact`. A backend whose `append` is an atomic compare-and-swap runs it at once.
   */
  exclusive?<T>(holder: LockInfo, work: () => Promise<T>): Promise<T>;
  /** After `load` found no state: why, when it is more than "nothing stored yet" (a database schema without cplane's tables). */
  absence?(): string | undefined;
  /** The open-plan registry kept with this state (open-plans.ts): the saved plans of open pull requests. */
  openPlans?(): OpenPlanRegistry;
  /** Ends what the backend holds open (a database's connections); a file backend has nothing to end. */
  close?(): Promise<void>;
}
