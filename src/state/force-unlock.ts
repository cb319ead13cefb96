/**
 * `force-unlock`: removes a state's lock by its id, for a holder that died or
 * was stopped. The id must match, so a lock taken since is never removed.
 */
import type { LockInfo } from './errors.js';
import { LocalFileBackend } from './local-file-backend.js';
import { resolveStatePath } from './paths.js';

export async function forceUnlockState(options: { configDir: string; account?: string; statePath?: string; lockId: string }): Promise<{ path: string; removed: LockInfo }> {
  const path = resolveStatePath(options);
  const removed = await new LocalFileBackend(path).forceUnlock(options.lockId);
  return { path, removed };
}
