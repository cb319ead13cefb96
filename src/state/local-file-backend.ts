/**
 * The state as local files: a snapshot `state.json` and an append-only change
 * log `state.json.log` beside it (JSON lines). The log's first line names the
 * snapshot it follows (its serial and SHA-256); every other line is one group
 * of changes, appended and fdatasync'ed before the caller resumes.
 *
 * A compaction writes the new snapshot atomically (temporary file, fsync, the
 * previous version kept as `state.json.backup`, rename, fsync of the folder)
 * and then replaces the log the same way. Killed at any point, a load finds
 * either the old snapshot and its whole log, or the new snapshot and a log
 * whose groups it already covers (skipped by serial). A last line torn by a
 * crash was never acknowledged and is ignored. The lock is a file beside it
 * created with O_EXCL. An apply's address locks are a record beside it too
 * (`state.json.address-locks.json`), changed only under that lock; such an
 * apply holds the lock itself only around each append or compaction.
 */
import { constants, fdatasyncSync, fstatSync, ftruncateSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { copyFile, link, lstat, mkdir, open, readFile, readdir, realpath, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { hostname } from 'node:os';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AddressesLockedError, StateError, StateLockedError } from './errors.js';
import type { AddressHold, LockInfo } from './errors.js';
import { conflictsOf, readAddressRecord, serializeAddressRecord, type AddressLockResult } from './address-locks.js';
import type { ChangeGroup, LoadedState, LockHandle, StateBackend } from './backend.js';
import { parseStateFile, serializeStateFile } from './file-format.js';
import type { StateFileContents } from './types.js';
import { fileSystemError, isErrno } from './file-errors.js';
import { holderIsGone } from './lock-holder.js';
import { FileOpenPlans, type OpenPlanRegistry } from './open-plans.js';

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** The first line of a change log. */
interface LogHeader {
  log: 1;
  /** Serial of the snapshot the log follows. */
  base: number;
  /** SHA-256 (hex) of that snapshot's bytes: a match means the snapshot is the one cplane wrote and checked. */
  sha256: string;
}

/** Test hook: `CPLANE_TEST_KILL_IN_FOLD=N:POINT` kills the process with SIGKILL at POINT of its N-th compaction. */
const KILL_HOOK = 'CPLANE_TEST_KILL_IN_FOLD';
export type FoldPoint = 'snapshot-written' | 'snapshot-renamed' | 'log-written';

async function fsyncPath(path: string, flags: number): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** How long a writer waits for another apply's one write (a brief hold of the lock) before it says the state is locked. */
const BRIEF_WAIT_MS = 60_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class LocalFileBackend implements StateBackend {
  /** The file written: `location`, or the target of a symlink at `location` (a link is followed, never replaced). */
  private file: string | undefined;
  /** What the snapshot looked like after our last load or compaction: a different file means someone else wrote it. */
  private known: FileIdentity | undefined;
  private base = -1;
  private last = -1;
  private snapshotHash = '';
  /** Valid length of the log as we know it; a torn tail beyond it is cut before the next append. */
  private logLength = 0;
  private logTorn = false;
  private log: FileHandle | undefined;
  /** The log's inode when it was opened: a log replaced by another writer is a different file. */
  private logIno = -1;
  private folds = 0;

  constructor(readonly location: string) {}

  /** The open plans of this state: `state.json.plans.json` beside it. */
  openPlans(): OpenPlanRegistry {
    return new FileOpenPlans(`${this.location}.plans.json`);
  }

  get lockPath(): string {
    return `${this.location}.lock`;
  }

  get addressLocksPath(): string {
    return `${this.location}.address-locks.json`;
  }

  get backupPath(): string {
    return `${this.file ?? this.location}.backup`;
  }

  get logPath(): string {
    return `${this.file ?? this.location}.log`;
  }

  async load(): Promise<LoadedState | undefined> {
    // Read again (an apply catching up with others): the log we held open may have been replaced since.
    await this.log?.close().catch(() => undefined);
    this.log = undefined;
    this.file = await this.resolveFile();
    const text = await readIfPresent(this.file);
    if (text === undefined) return undefined;
    const hash = sha256(text);
    const log = await this.readLog();
    const trusted = log?.header.sha256 === hash;
    const snapshot = parseStateFile(text, this.file, { checked: trusted });
    this.known = this.identity();
    this.base = snapshot.serial;
    this.snapshotHash = hash;
    this.last = snapshot.serial;
    const groups: ChangeGroup[] = [];
    if (log) {
      for (const group of log.groups) {
        if (group.serial <= snapshot.serial) continue;
        if (group.serial !== this.last + 1) {
          throw new StateError(
            'STATE_CORRUPT',
            `The change log ${this.logPath} skips from serial ${this.last} to ${group.serial}.`,
            'The files were left untouched. Restore state.json and its log from your own copy.',
          );
        }
        groups.push(group);
        this.last = group.serial;
      }
      this.logLength = log.validLength;
      this.logTorn = log.torn;
      // A log written for an older snapshot (a compaction killed before it replaced the log) is rewritten by the next append.
      if (log.header.base !== snapshot.serial && !trusted) this.logLength = -1;
    } else {
      this.logLength = -1;
    }
    return { snapshot, groups };
  }

  async append(group: ChangeGroup): Promise<void> {
    if (group.serial !== this.last + 1)
      throw this.changedError(`it holds serial ${this.last}, and a change to serial ${group.serial} was offered`);
    const line = `${JSON.stringify(group)}\n`;
    // One stat: a snapshot replaced by someone else would make the log describe the wrong state.
    this.refuseIfChanged();
    try {
      if (this.logLength < 0 || !this.log) await this.openLog();
      else this.refuseIfLogChanged();
      // A positional write at the end we know, so nothing of another writer is ever overwritten unnoticed.
      // Synchronous on purpose: a few small system calls (about 0.2 ms and an fdatasync) where each trip
      // through libuv's thread pool would also wait for a turn of a busy event loop, and every write of an
      // apply waits for its group (docs/performance.md).
      writeSync(this.log!.fd, line, this.logLength, 'utf8');
      fdatasyncSync(this.log!.fd);
    } catch (error) {
      if (error instanceof StateError) throw error;
      // Cut what may have been written of the group (a full disk), so the log ends where it did.
      try {
        if (this.log) ftruncateSync(this.log.fd, this.logLength);
      } catch {
        // The write error below is the one to report.
      }
      throw fileSystemError(error, this.logPath, 'write');
    }
    this.logLength += Buffer.byteLength(line);
    this.last = group.serial;
  }

  async compact(snapshot: StateFileContents): Promise<void> {
    const creating = this.last < 0;
    if (!creating && (snapshot.serial < this.base || snapshot.serial > this.last)) {
      throw this.changedError(`a snapshot at serial ${snapshot.serial} was offered, outside ${this.base}..${this.last}`);
    }
    this.file ??= await this.resolveFile();
    const folder = dirname(this.file);
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fileSystemError(error, folder, 'create');
    }
    this.refuseIfChanged();
    // Groups another writer appended since we read the log would be dropped with it.
    const logSize = statSync(this.logPath, { throwIfNoEntry: false })?.size;
    if (!creating && this.logLength >= 0 && !this.logTorn && logSize !== undefined && logSize !== this.logLength)
      throw this.changedError('its change log was written by someone else');
    this.folds++;
    const text = serializeStateFile(snapshot);
    const kept = snapshot.serial < this.last ? await this.groupLinesAfter(snapshot.serial) : '';
    await this.writeAtomically(this.file, text, 'snapshot-written', () => this.keepBackup());
    this.killHook('snapshot-renamed');
    this.known = this.identity();
    this.base = snapshot.serial;
    this.snapshotHash = sha256(text);
    if (creating) this.last = snapshot.serial;
    const header: LogHeader = { log: 1, base: snapshot.serial, sha256: this.snapshotHash };
    const logText = `${JSON.stringify(header)}\n${kept}`;
    await this.log?.close();
    this.log = undefined;
    await this.writeAtomically(this.logPath, logText, 'log-written');
    this.logLength = Buffer.byteLength(logText);
    this.logTorn = false;
  }

  async lock(info: LockInfo): Promise<LockHandle> {
    const handle = await this.takeLockFile(info);
    // A run that holds the whole state must not start while an apply holds some of its addresses.
    const held = await readAddressRecord(this.addressLocksPath)
      .then((holds) => holds.filter((h) => !holderIsGone(h.holder)))
      .catch(async (error: unknown) => {
        await this.unlock(handle);
        throw error;
      });
    if (held.length > 0) {
      await this.unlock(handle);
      throw new AddressesLockedError(held, this.location);
    }
    await this.removeLeftoverTemps();
    return handle;
  }

  async exclusive<T>(holder: LockInfo, work: () => Promise<T>): Promise<T> {
    const handle = await this.takeBriefly(holder, true);
    try {
      return await work();
    } finally {
      await this.unlock(handle);
    }
  }

  async lockAddresses(holder: LockInfo, addresses: readonly string[]): Promise<LockHandle & AddressLockResult> {
    // Not patient: a run holding the whole state holds every address, and is named at once.
    const brief = await this.takeBriefly(holder, false);
    try {
      const holds = await readAddressRecord(this.addressLocksPath);
      const gone = holds.filter((h) => h.holder.id !== holder.id && holderIsGone(h.holder));
      const kept = holds.filter((h) => !gone.includes(h) && h.holder.id !== holder.id);
      const conflicts = conflictsOf(kept, addresses, holder.id);
      if (conflicts.length > 0) throw new AddressesLockedError(conflicts, this.location);
      await this.writeAddressRecord([...kept, { holder, addresses: [...addresses] }]);
      return { id: holder.id, info: holder, takenOver: conflictsOf(gone, addresses, holder.id) };
    } finally {
      await this.unlock(brief);
    }
  }

  async unlockAddresses(handle: LockHandle): Promise<void> {
    await this.removeAddressHold(handle.id, handle.info);
  }

  /** The address locks recorded beside the state, live or not. */
  addressHolds(): Promise<AddressHold[]> {
    return readAddressRecord(this.addressLocksPath);
  }

  /** Removes the hold with id `id` from the record, under the lock; returns it, or undefined when there is none. */
  private async removeAddressHold(id: string, as: LockInfo): Promise<AddressHold | undefined> {
    const brief = await this.takeBriefly(as, true);
    try {
      const holds = await readAddressRecord(this.addressLocksPath);
      const removed = holds.find((h) => h.holder.id === id);
      if (removed) await this.writeAddressRecord(holds.filter((h) => h !== removed));
      return removed;
    } finally {
      await this.unlock(brief);
    }
  }

  private async writeAddressRecord(holds: readonly AddressHold[]): Promise<void> {
    if (holds.length > 0) await this.writeAtomically(this.addressLocksPath, serializeAddressRecord(holds));
    else await unlink(this.addressLocksPath).catch(() => undefined);
  }

  /**
   * The state lock for one write or one change of the address record: it waits while another apply holds it
   * for such a moment (or, when `patient`, while anyone holds it), and takes over one whose holder is gone.
   */
  private async takeBriefly(holder: LockInfo, patient: boolean): Promise<LockHandle> {
    const info: LockInfo = { ...holder, id: randomUUID(), time: new Date().toISOString(), brief: true };
    const deadline = Date.now() + BRIEF_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.takeLockFile(info);
      } catch (error) {
        if (!(error instanceof StateLockedError) || Date.now() >= deadline) throw error;
        if (error.stale) await this.forceUnlock(error.holder.id).catch(() => undefined);
        else if (error.holder.brief || patient) await pause(Math.min(5 * 2 ** attempt, 100));
        else throw error;
      }
    }
  }

  private async takeLockFile(info: LockInfo): Promise<LockHandle> {
    const folder = dirname(this.location);
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeFile(this.lockPath, `${JSON.stringify(info)}\n`, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw fileSystemError(error, this.lockPath, 'create');
      const holder = await this.readLockPatiently();
      throw new StateLockedError(holder, holderIsGone(holder), this.lockPath);
    }
    const lockPath = this.lockPath;
    const releaseAtExit = () => {
      try {
        const held = JSON.parse(readFileSync(lockPath, 'utf8')) as LockInfo;
        if (held.id === info.id) unlinkSync(lockPath);
      } catch {
        // Already gone or unreadable: nothing of ours to remove.
      }
    };
    return { id: info.id, info, releaseAtExit };
  }

  async unlock(handle: LockHandle): Promise<void> {
    await this.log?.close().catch(() => undefined);
    this.log = undefined;
    const current = await this.readLock().catch(() => undefined);
    // Someone may have force-unlocked and re-locked meanwhile: never remove their lock.
    if (current?.id === handle.id) await unlink(this.lockPath).catch(() => undefined);
  }

  async forceUnlock(id: string): Promise<LockInfo> {
    const hold = (await this.addressHolds()).find((h) => h.holder.id === id);
    if (hold) {
      const self: LockInfo = { id, pid: process.pid, host: hostname(), time: new Date().toISOString(), command: 'cplane force-unlock' };
      const removed = await this.removeAddressHold(id, self);
      if (removed) return removed.holder;
    }
    const current = await this.currentLock();
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

  /** What the lock file says, or STATE_NOT_LOCKED / STATE_LOCK_UNREADABLE. */
  async currentLock(): Promise<LockInfo> {
    try {
      return await this.readLock();
    } catch (error) {
      if (isErrno(error, 'ENOENT')) {
        throw new StateError('STATE_NOT_LOCKED', `The state ${this.location} is not locked.`, 'There is nothing to unlock.');
      }
      throw new StateError(
        'STATE_LOCK_UNREADABLE',
        `The lock file ${this.lockPath} cannot be read.`,
        `If no cplane is running, delete ${this.lockPath} by hand.`,
        { cause: error },
      );
    }
  }

  /** Follows a symlink at `location` to the file it names, so the link stays a link. */
  private async resolveFile(): Promise<string> {
    try {
      const info = await lstat(this.location);
      if (!info.isSymbolicLink()) return this.location;
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return this.location;
      throw fileSystemError(error, this.location, 'read');
    }
    try {
      return await realpath(this.location);
    } catch (error) {
      if (!isErrno(error, 'ENOENT')) throw fileSystemError(error, this.location, 'read');
      throw new StateError(
        'STATE_SYMLINK_BROKEN',
        `The state file ${this.location} is a symbolic link to a file that does not exist.`,
        'Point the link at the state file, or remove the link to start a new state.',
      );
    }
  }

  private async readLog(): Promise<{ header: LogHeader; groups: ChangeGroup[]; validLength: number; torn: boolean } | undefined> {
    const text = await readIfPresent(this.logPath);
    if (text === undefined) return undefined;
    const lines = text.split('\n');
    let validLength = 0;
    let header: LogHeader | undefined;
    const groups: ChangeGroup[] = [];
    let torn = false;
    for (const [index, line] of lines.entries()) {
      const complete = index < lines.length - 1;
      if (!complete) {
        // Text after the last newline: a record whose append was cut short. It was never acknowledged.
        torn = line !== '';
        break;
      }
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        if (index === lines.length - 2 && lines[lines.length - 1] === '') {
          // The last line is complete but damaged: also a cut-short append (the newline came through, the rest did not).
          torn = true;
          break;
        }
        throw new StateError(
          'STATE_CORRUPT',
          `The change log ${this.logPath} is damaged at line ${index + 1}: ${(error as Error).message}.`,
          'The files were left untouched. Restore state.json and its log from your own copy.',
          { cause: error },
        );
      }
      if (index === 0) {
        if (!isLogHeader(record))
          throw new StateError(
            'STATE_CORRUPT',
            `The change log ${this.logPath} does not start with its header line.`,
            'The files were left untouched. Restore state.json and its log from your own copy.',
          );
        header = record;
      } else {
        if (!isGroup(record))
          throw new StateError(
            'STATE_CORRUPT',
            `The change log ${this.logPath} has a line that is not a group of changes, at line ${index + 1}.`,
            'The files were left untouched. Restore state.json and its log from your own copy.',
          );
        groups.push(record);
      }
      validLength += Buffer.byteLength(line) + 1;
    }
    if (!header) return undefined;
    return { header, groups, validLength, torn };
  }

  /** Opens the log for appending; starts a new one (header only) when there is none for the current snapshot, and cuts a torn tail. */
  private async openLog(): Promise<void> {
    if (this.logLength < 0) {
      const header: LogHeader = { log: 1, base: this.base, sha256: this.snapshotHash };
      const kept = this.last > this.base ? await this.groupLinesAfter(this.base) : '';
      const text = `${JSON.stringify(header)}\n${kept}`;
      await this.writeAtomically(this.logPath, text);
      this.logLength = Buffer.byteLength(text);
      this.logTorn = false;
    }
    this.log = await open(this.logPath, 'r+');
    this.logIno = fstatSync(this.log.fd).ino;
    if (this.logTorn) {
      await this.log.truncate(this.logLength);
      await this.log.datasync();
      this.logTorn = false;
    }
    this.refuseIfLogChanged();
  }

  /** The log must end where our last append ended: anything else means another writer. */
  private refuseIfLogChanged(): void {
    const { size } = fstatSync(this.log!.fd);
    if (size !== this.logLength) throw this.changedError('its change log was written by someone else');
    // Another writer may have replaced the log (a compaction): the file we hold open is then not the log any more.
    const now = statSync(this.logPath, { throwIfNoEntry: false });
    if (now?.ino !== this.logIno) throw this.changedError('its change log was replaced by someone else');
  }

  /** The raw log lines of groups after `serial`, read back from the log (only when a snapshot lags behind the log). */
  private async groupLinesAfter(serial: number): Promise<string> {
    const log = await this.readLog();
    return (log?.groups ?? [])
      .filter((g) => g.serial > serial)
      .map((g) => `${JSON.stringify(g)}\n`)
      .join('');
  }

  private async writeAtomically(path: string, text: string, point?: FoldPoint, beforeRename?: () => Promise<void>): Promise<void> {
    const folder = dirname(path);
    const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (point) this.killHook(point);
      await beforeRename?.();
      await rename(temp, path);
      // The rename is durable only once the folder entry is on disk.
      await fsyncPath(folder, constants.O_RDONLY);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw fileSystemError(error, path, 'write');
    }
  }

  private killHook(point: FoldPoint): void {
    const hook = process.env[KILL_HOOK];
    if (hook && hook === `${this.folds}:${point}`) process.kill(process.pid, 'SIGKILL');
  }

  private changedError(detail: string): StateError {
    return new StateError(
      'STATE_CHANGED',
      `The state file ${this.location} was changed by someone else since cplane read it (${detail}); nothing was written.`,
      'Run the command again. Edit state only with `cplane state` commands, and never while cplane runs.',
    );
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

  private identity(): FileIdentity | undefined {
    try {
      const { ino, size, mtimeMs } = statSync(this.file ?? this.location);
      return { ino, size, mtimeMs };
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw fileSystemError(error, this.file ?? this.location, 'read');
    }
  }

  private refuseIfChanged(): void {
    const now = this.identity();
    const same = now?.ino === this.known?.ino && now?.size === this.known?.size && now?.mtimeMs === this.known?.mtimeMs;
    if (!same) throw this.changedError('the snapshot on disk is not the one it read');
  }

  private async keepBackup(): Promise<void> {
    const file = this.file ?? this.location;
    const temp = `${this.backupPath}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await link(file, temp);
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return;
      // Some filesystems have no hard links.
      await copyFile(file, temp);
    }
    await rename(temp, this.backupPath);
  }

  private async removeLeftoverTemps(): Promise<void> {
    const file = await this.resolveFile().catch(() => this.location);
    const folder = dirname(file);
    const prefixes = [`${basename(file)}.tmp-`, `${basename(file)}.backup.tmp-`, `${basename(file)}.log.tmp-`];
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (prefixes.some((prefix) => name.startsWith(prefix))) await unlink(join(folder, name)).catch(() => undefined);
    }
  }
}

function isLogHeader(value: unknown): value is LogHeader {
  const v = value as Partial<LogHeader> | null;
  return typeof v === 'object' && v !== null && v.log === 1 && typeof v.base === 'number' && typeof v.sha256 === 'string';
}

function isGroup(value: unknown): value is ChangeGroup {
  const v = value as Partial<ChangeGroup> | null;
  return typeof v === 'object' && v !== null && Number.isInteger(v.serial) && Array.isArray(v.changes);
}

/** A file's text, or undefined when there is no such file. */
async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw fileSystemError(error, path, 'read');
  }
}
