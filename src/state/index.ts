/**
 * The state store: per-account state with a lock, atomic saves, sealed
 * one-time secrets and fingerprints of write-only values. Other folders use
 * `openState` and the types; the backend and file format stay inside.
 */
export { openState } from './store.js';
export type { OpenStateOptions, StateStore } from './store.js';
export { forceUnlockState } from './force-unlock.js';
export { resolveStatePath } from './paths.js';
export { renamedEntry } from './rename-entry.js';
export { StateError, StateLockedError } from './errors.js';
export type { StateErrorCode, LockInfo } from './errors.js';
export type { StateBackend, LockHandle } from './backend.js';
export { LocalFileBackend } from './local-file-backend.js';
export type { StateFileContents, StateHeader } from './file-format.js';
export { CURRENT_VERSION } from './migrations.js';
export type { SealedValue, ResourceState, JournalEntry, StateData } from './types.js';
