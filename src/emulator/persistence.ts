/**
 * Optional persistence of the database to a JSON file: loaded at start, saved
 * after writes (debounced) and at close. Saving is atomic: a temporary file in
 * the same folder is written and fsynced, then renamed over the data file.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { addMissingReaderKeys } from './keys.js';
import type { Db } from './store.js';

export function loadDatabase(file: string): Db | undefined {
  if (!existsSync(file)) return undefined;
  const data = JSON.parse(readFileSync(file, 'utf8')) as Db;
  if (data?.version !== 1 || !Array.isArray(data.projects)) throw new Error(`${file} is not an emulator data file`);
  if (data.clockOffsetMs !== undefined && !Number.isSafeInteger(data.clockOffsetMs))
    throw new Error(`${file}: clockOffsetMs must be a whole number of milliseconds`);
  return addMissingReaderKeys(data);
}

export function saveDatabase(file: string, db: Db): void {
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(db));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

export class Persister {
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly file: string,
    private readonly db: () => Db,
    private readonly delayMs = 20,
  ) {}

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      try {
        this.flush();
      } catch (error) {
        // A failed save must not stop the server; the next write tries again.
        process.stderr.write(`emulator: could not save ${this.file}: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }, this.delayMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    saveDatabase(this.file, this.db());
  }
}
