/**
 * `force-unlock`: removes a state's lock by its id, for a holder that died or
 * was stopped. The id must match, so a lock taken since is never removed; a
 * holder that still runs on this host is refused unless `force` is given.
 */
import { StateError } from './errors.js';
import type { LockInfo } from './errors.js';
import { LocalFileBackend } from './local-file-backend.js';
import { holderIsAlive } from './lock-holder.js';
import { resolveStatePath } from './paths.js';

export async function forceUnlockState(options: { configDir: string; account?: string; statePath?: string; lockId: string; force?: boolean }): Promise<{ path: string; removed: LockInfo }> {
  const path = resolveStatePath(options);
  const backend = new LocalFileBackend(path);
  if (!options.force) {
    const holder = await backend.currentLock();
    if (holder.id === options.lockId && holderIsAlive(holder)) {
      throw new StateError(
        'STATE_LOCK_HOLDER_ALIVE',
        `The lock ${holder.id} is held by pid ${holder.pid} on this host, which is still running (\`${holder.command}\` since ${holder.time}); nothing was removed.`,
        `Wait for it to finish, or stop it. To remove the lock anyway, run \`cplane force-unlock ${holder.id} --force\`.`,
      );
    }
  }
  const removed = await backend.forceUnlock(options.lockId);
  return { path, removed };
}
