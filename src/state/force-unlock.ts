/**
 * `force-unlock`: removes a state's lock by its id, for a holder that died or
 * was stopped. The id must match, so a lock taken since is never removed. A
 * PostgreSQL lock belongs to a live database session (a dead holder's lock is
 * already gone): it is removed only by ending that session, with `terminate`.
 */
import type { LockInfo } from './errors.js';
import { openBackend } from './open-backend.js';
import type { StateLocationOptions } from './open-backend.js';
import { PostgresBackend } from './postgres/index.js';

export async function forceUnlockState(options: StateLocationOptions & { lockId: string; terminate?: boolean }): Promise<{ path: string; removed: LockInfo }> {
  const { backend, location, release } = openBackend(options);
  try {
    const removed = backend instanceof PostgresBackend
      ? await backend.forceUnlockWith(options.lockId, { terminate: options.terminate ?? false })
      : await backend.forceUnlock(options.lockId);
    return { path: location, removed };
  } finally {
    await release();
  }
}
