/**
 * The state as a local file. A save writes a temporary file in the same
 * folder, fsyncs it, keeps the previous version as `state.json.backup`, renames
 * the new file over the old one and fsyncs the folder: after a crash at any
 * point the file is the old or the new state, never a partial one. The lock is
 * a file beside it created with O_EXCL.
 */
import { constants } from 'node:fs';
import { copyFile, link, mkdir, open, readFile, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { StateError, StateLockedError } from './errors.js';
import type { LockInfo } from './errors.js';
import type { ChangeGroup, LoadedState, LockHandle, StateBackend } from './backend.js';
import { applyGroups } from './change-groups.js';
import { parseStateFile, serializeStateFile } from './file-format.js';
import type { StateFileContents } from './file-format.js';

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

function isErrno(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, 'EPERM');
  }
}

async function fsyncPath(path: string, flags: number): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class LocalFileBackend implements StateBackend {
  readonly lockPath: string;
  readonly backupPath: string;
  /** What the file looked like after our last load or save: a different file on disk means someone else wrote it. */
  private known: FileIdentity | undefined;

  constructor(readonly location: string) {
    this.lockPath = `${location}.lock`;
    this.backupPath = `${location}.backup`;
  }

  /** The contents last loaded or written (stand-in until the change-log file lands: each append rewrites the file). */
  private contents: StateFileContents | undefined;

  async load(): Promise<LoadedState | undefined> {
    this.contents = await this.loadFile();
    return this.contents ? { snapshot: this.contents, groups: [] } : undefined;
  }

  async append(group: ChangeGroup): Promise<void> {
    if (!this.contents || group.serial !== this.contents.serial + 1) {
      throw new StateError('STATE_CHANGED', `The state file ${this.location} is not at serial ${group.serial - 1}; nothing was written.`, 'Run the command again.');
    }
    const next = applyGroups(this.contents, [group]);
    await this.save(next);
    this.contents = next;
  }

  async compact(snapshot: StateFileContents): Promise<void> {
    await this.save(snapshot);
    this.contents = snapshot;
  }

  private async loadFile(): Promise<StateFileContents | undefined> {
    let text: string;
    try {
      text = await readFile(this.location, 'utf8');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    }
    const contents = parseStateFile(text, this.location);
    this.known = await this.identity();
    return contents;
  }

  private async save(contents: StateFileContents): Promise<void> {
    const folder = dirname(this.location);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await this.refuseIfChanged();
    const temp = `${this.location}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(serializeStateFile(contents));
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    try {
      await this.keepBackup();
      await rename(temp, this.location);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    // The rename is durable only once the folder entry is on disk.
    await fsyncPath(folder, constants.O_RDONLY);
    this.known = await this.identity();
  }

  async lock(info: LockInfo): Promise<LockHandle> {
    await mkdir(dirname(this.location), { recursive: true, mode: 0o700 });
    try {
      await writeFile(this.lockPath, `${JSON.stringify(info)}\n`, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error;
      const holder = await this.readLockPatiently();
      throw new StateLockedError(holder, holder.host === hostname() && !pidAlive(holder.pid), this.lockPath);
    }
    await this.removeLeftoverTemps();
    return { id: info.id, info };
  }

  async unlock(handle: LockHandle): Promise<void> {
    const current = await this.readLock().catch(() => undefined);
    // Someone may have force-unlocked and re-locked meanwhile: never remove their lock.
    if (current?.id === handle.id) await unlink(this.lockPath).catch(() => undefined);
  }

  async forceUnlock(id: string): Promise<LockInfo> {
    let current: LockInfo | undefined;
    try {
      current = await this.readLock();
    } catch (error) {
      if (isErrno(error, 'ENOENT')) {
        throw new StateError('STATE_NOT_LOCKED', `The state ${this.location} is not locked.`, 'There is nothing to unlock.');
      }
      throw new StateError('STATE_LOCK_UNREADABLE', `The lock file ${this.lockPath} cannot be read.`, `If no cplane is running, delete ${this.lockPath} by hand.`, { cause: error });
    }
    if (current.id !== id) {
      throw new StateError(
        'STATE_LOCK_ID_MISMATCH',
        `The state is locked with id ${current.id} (pid ${current.pid} on ${current.host}, \`${current.command}\`), not ${id}; nothing was removed.`,
        'Check the lock id in the error that reported the lock.',
      );
    }
    await unlink(this.lockPath);
    return current;
  }

  private async readLock(): Promise<LockInfo> {
    const info = JSON.parse(await readFile(this.lockPath, 'utf8')) as LockInfo;
    if (typeof info?.id !== 'string' || typeof info.pid !== 'number') throw new Error('lock file lacks id or pid');
    return info;
  }

  // The winner creates the lock file and writes it in two steps: a loser may see it empty for a moment.
  private async readLockPatiently(): Promise<LockInfo> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        return await this.readLock();
      } catch (error) {
        if (isErrno(error, 'ENOENT')) break;
        lastError = error;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    throw new StateError(
      'STATE_LOCK_UNREADABLE',
      `The state is locked, but the lock file ${this.lockPath} cannot be read or vanished while reading it.`,
      `Try again. If no cplane is running, delete ${this.lockPath} by hand.`,
      { cause: lastError },
    );
  }

  private async identity(): Promise<FileIdentity | undefined> {
    try {
      const { ino, size, mtimeMs } = await stat(this.location);
      return { ino, size, mtimeMs };
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw error;
    }
  }

  private async refuseIfChanged(): Promise<void> {
    const now = await this.identity();
    const same = now?.ino === this.known?.ino && now?.size === this.known?.size && now?.mtimeMs === this.known?.mtimeMs;
    if (!same) {
      throw new StateError(
        'STATE_CHANGED',
        `The state file ${this.location} was changed by someone else since cplane read it; nothing was written.`,
        'Run the command again. Edit state only with `cplane state` commands, and never while cplane runs.',
      );
    }
  }

  private async keepBackup(): Promise<void> {
    const temp = `${this.backupPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await link(this.location, temp);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return;
      // Some filesystems have no hard links.
      await copyFile(this.location, temp);
    }
    await rename(temp, this.backupPath);
  }

  private async removeLeftoverTemps(): Promise<void> {
    const folder = dirname(this.location);
    const prefixes = [`${basename(this.location)}.tmp-`, `${basename(this.backupPath)}.tmp-`];
    for (const name of await readdir(folder)) {
      if (prefixes.some((prefix) => name.startsWith(prefix))) await unlink(join(folder, name)).catch(() => undefined);
    }
  }
}
