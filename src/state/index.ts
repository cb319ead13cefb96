/**
 * The state store: per-account state with a lock, a change log folded into
 * snapshots, sealed one-time secrets and fingerprints of write-only values.
 * Other folders use `openState` and the types; the file format stays inside.
 */
export { openState } from './store.js';
export type { OpenStateOptions, StateStore } from './store.js';
export type { StateCrypto } from './state-crypto.js';
export { forceUnlockState } from './force-unlock.js';
export { resolveStatePath } from './paths.js';
export { renamedEntry } from './rename-entry.js';
export { printableLock, StateError, StateLockedError } from './errors.js';
export type { Allowance, StateErrorCode, LockInfo } from './errors.js';
export type { StateBackend, LockHandle, StateChange, ChangeGroup, LoadedState } from './backend.js';
export { LocalFileBackend } from './local-file-backend.js';
export { readStateFile } from './read-state.js';
export type { StateFileContents, StateHeader } from './types.js';
export { CURRENT_VERSION } from './migrations.js';
export type { SealedValue, ResourceState, JournalEntry, StateData } from './types.js';
export { pullState, pushState, migrateState, stateHistory } from './transfer.js';
export type { WriteOutcome } from './transfer.js';
export { parseStateFile, serializeStateFile } from './file-format.js';
export { maskUrl, isPostgresUrl, DEFAULT_WORKSPACE } from './postgres/index.js';
export { checkWorkspace } from './open-backend.js';
export type { StateVersion } from './postgres/index.js';
export { prepareStateKey, prepareStateLocation, type KeyReport, type LocationReport } from './prepare.js';
export { checkedOpenPlan, overlappingPlans, type OpenPlan, type OpenPlanRegistry } from './open-plans.js';
