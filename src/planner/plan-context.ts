/**
 * The context a saved plan carries so that it can be applied in another job,
 * from another checkout at another path: the configuration folder relative to
 * the working folder, each configuration file with the sha256 of its content,
 * and the state location without credentials. Apply compares the files to name
 * exactly which ones changed since the plan was made.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { PlannedFile } from '../plan-model/index.js';

const CONFIG_FILE = /\.ya?ml$/i;

const posix = (path: string) => path.split(sep).join('/');

/** The configuration files of `dir` (the same ones loadConfig reads) with the sha256 of their content. */
export async function plannedFiles(dir: string): Promise<PlannedFile[]> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && CONFIG_FILE.test(e.name)).map((e) => e.name).sort();
  return Promise.all(names.map(async (name) => ({ path: posix(name), sha256: createHash('sha256').update(await readFile(join(dir, name))).digest('hex') })));
}

/** Files whose content differs from the plan's, as `main.yaml (changed)`, `new.yaml (added)`, `old.yaml (removed)`. */
export async function changedFiles(planned: PlannedFile[], dir: string): Promise<string[]> {
  const now = new Map((await plannedFiles(dir)).map((f) => [f.path, f.sha256]));
  const then = new Map(planned.map((f) => [f.path, f.sha256]));
  const changes: string[] = [];
  for (const [path, sha] of then) {
    const current = now.get(path);
    if (current === undefined) changes.push(`${path} (removed)`);
    else if (current !== sha) changes.push(`${path} (changed)`);
  }
  for (const path of now.keys()) if (!then.has(path)) changes.push(`${path} (added)`);
  return changes.sort();
}

/** `target` relative to `from` with `/` separators ('.' for the same folder). */
export function relativePosix(from: string, target: string): string {
  return posix(relative(from, target)) || '.';
}

/** A state file as recorded in a plan: relative to the configuration folder when inside it, else absolute. */
export function recordedStatePath(configDir: string, statePath: string): string {
  const inside = relative(configDir, statePath);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? posix(inside) : statePath;
}

/** Whether a `--state` value is a URL (a database) rather than a file path. */
export const isStateUrl = (value: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(value);

/** A state URL without its password (and without password query parameters): safe to print and to save in a plan. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    for (const key of [...parsed.searchParams.keys()]) if (/pass/i.test(key)) parsed.searchParams.delete(key);
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1@');
  }
}
