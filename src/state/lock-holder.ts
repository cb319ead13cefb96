/** Whether the process holding a lock on this host still runs. */
import { hostname } from 'node:os';
import type { LockInfo } from './errors.js';
import { isErrno } from './file-errors.js';

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, 'EPERM');
  }
}

/** True when the holder ran on this host and its process is gone: its lock is safe to take over. */
export function holderIsGone(holder: LockInfo): boolean {
  return holder.host === hostname() && !pidAlive(holder.pid);
}

/** True when the holder runs on this host right now. */
export function holderIsAlive(holder: LockInfo): boolean {
  return holder.host === hostname() && pidAlive(holder.pid);
}
