/**
 * `force-unlock`: removes a state's lock, or an apply's address locks, by its
 * id, for a holder that died or was stopped. The id must match, so a lock taken since is never removed. A
 * holder that still runs is left alone unless `force` is given: a file lock
 * whose process runs on this host is refused, and a PostgreSQL lock belongs to
 * a live database session (a dead holder's lock is already gone), which only
 * `force` ends.
 */
import { printableLock, StateError } from './errors.js';
import type { LockInfo } from './errors.js';
import { LocalFileBackend } from './local-file-backend.js';
import { holderIsAlive } from './lock-holder.js';
import { openBackend, type StateLocationOptions } from './open-backend.js';
import { PostgresBackend } from './postgres/index.js';
import { suggestedCommand } from '../text/escape-for.js';

export async function forceUnlockState(
  options: StateLocationOptions & { lockId: string; force?: boolean },
): Promise<{ path: string; removed: LockInfo }> {
  const opened = openBackend(options);
  const { backend, location } = opened;
  const force = options.force ?? false;
  try {
    if (backend instanceof PostgresBackend)
      return { path: location, removed: await backend.forceUnlockWith(options.lockId, { terminate: force }) };
    if (!force && backend instanceof LocalFileBackend) {
      const hold = (await backend.addressHolds()).find((h) => h.holder.id === options.lockId);
      const holder = hold?.holder ?? (await backend.currentLock());
      if (holder.id === options.lockId && holderIsAlive(holder)) {
        throw new StateError(
          'STATE_LOCK_HOLDER_ALIVE',
          `The lock ${printableLock(holder).id} is held by pid ${holder.pid} on this host, which is still running (\`${printableLock(holder).command}\` since ${printableLock(holder).time}); nothing was removed.`,
          `Wait for it to finish, or stop it. To remove the lock anyway, run \`${suggestedCommand(['force-unlock', printableLock(holder).id, '--force'])}\`.`,
        );
      }
    }
    return { path: location, removed: await backend.forceUnlock(options.lockId) };
  } finally {
    await opened.backend.close?.();
  }
}
