/**
 * Where a state is kept. The store talks only to this interface, so a shared
 * backend (an object store with a lock table, say) can be added without
 * touching the planner or the applier. The local file is the first one.
 */
import type { LockInfo } from './errors.js';
import type { StateFileContents } from './file-format.js';

export interface LockHandle {
  id: string;
  info: LockInfo;
}

export interface StateBackend {
  /** Where the state lives, for messages (a file path, a URL). */
  readonly location: string;
  /** The stored state, parsed and checked, or undefined when there is none yet. */
  load(): Promise<StateFileContents | undefined>;
  /** Replaces the stored state atomically: a reader sees the old or the new contents, never a mix. */
  save(contents: StateFileContents): Promise<void>;
  /** Takes the lock at once or throws StateLockedError naming the holder; never waits. */
  lock(info: LockInfo): Promise<LockHandle>;
  /** Releases a lock taken with `lock`; does nothing if it was cleared meanwhile. */
  unlock(handle: LockHandle): Promise<void>;
  /** Removes the lock whose id is `id` (whoever holds it) and returns what it said. */
  forceUnlock(id: string): Promise<LockInfo>;
}
