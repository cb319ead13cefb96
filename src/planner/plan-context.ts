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

/** A path relative to the configuration folder that stays inside it (a module's file: `modules/team/main.yaml`). */
const insideFolder = (path: string) => CONFIG_FILE.test(path) && !isAbsolute(path) && !path.split('/').some((part) => part === '..' || part === '');

/**
 * The configuration files of `dir` (the same ones loadConfig reads) with the sha256 of their content, and the
 * files of its modules (`modules`: paths relative to `dir` with `/`, as DesiredState.files lists them) that exist.
 */
export async function plannedFiles(dir: string, modules: readonly string[] = []): Promise<PlannedFile[]> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && CONFIG_FILE.test(e.name)).map((e) => e.name);
  const paths = [...new Set([...names, ...modules.filter(insideFolder)])].sort();
  const read = async (path: string) => readFile(join(dir, ...path.split('/'))).catch(() => undefined);
  const files = await Promise.all(paths.map(async (path) => ({ path: posix(path), content: await read(path) })));
  return files.filter((f) => f.content !== undefined).map((f) => ({ path: f.path, sha256: createHash('sha256').update(f.content!).digest('hex') }));
}

/** Files whose content differs from the plan's, as `main.yaml (changed)`, `new.yaml (added)`, `old.yaml (removed)`. */
export async function changedFiles(planned: PlannedFile[], dir: string): Promise<string[]> {
  const now = new Map((await plannedFiles(dir, planned.map((f) => f.path))).map((f) => [f.path, f.sha256]));
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

