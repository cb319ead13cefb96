/**
 * What `cplane plan --out` records about where it ran (the plan's `origin`), so that the plan applies in another
 * job from another checkout at another path with no --var or --var-file: the configuration folder relative to the
 * working folder, each configuration file with the sha256 of its content, the variable values, the account, the
 * workspace and the state location without credentials. Apply compares the files to name exactly which ones
 * changed since the plan was made (prepare-apply.ts).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { ApiClient } from '../api/client.js';
import type { PlanOrigin, PlannedFile } from '../plan-model/index.js';
import { listAccounts } from '../providers/index.js';
import type { CommandContext } from '../session/command-context.js';
import type { Workspace } from '../session/workspace.js';
import { urlWithoutPasswords } from '../text/url-secrets.js';

const CONFIG_FILE = /\.ya?ml$/i;

const posix = (path: string) => path.split(sep).join('/');

/** A path relative to the configuration folder that stays inside it (a module's file: `modules/team/main.yaml`). */
const insideFolder = (path: string) =>
  CONFIG_FILE.test(path) && !isAbsolute(path) && !path.split('/').some((part) => part === '..' || part === '');

/**
 * The configuration files of `dir` (the same ones loadConfig reads) with the sha256 of their content, and the
 * files of its modules (`modules`: paths relative to `dir` with `/`, as DesiredState.files lists them) that exist.
 */
export async function plannedFiles(dir: string, modules: readonly string[] = []): Promise<PlannedFile[]> {
  const names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && CONFIG_FILE.test(e.name)).map((e) => e.name);
  const paths = [...new Set([...names, ...modules.filter(insideFolder)])].sort();
  const read = async (path: string) => readFile(join(dir, ...path.split('/'))).catch(() => undefined);
  const files = await Promise.all(paths.map(async (path) => ({ path: posix(path), content: await read(path) })));
  return files
    .filter((f) => f.content !== undefined)
    .map((f) => ({ path: f.path, sha256: createHash('sha256').update(f.content!).digest('hex') }));
}

/** Files whose content differs from the plan's, as `main.yaml (changed)`, `new.yaml (added)`, `old.yaml (removed)`. */
export async function changedFiles(planned: PlannedFile[], dir: string): Promise<string[]> {
  const now = new Map(
    (
      await plannedFiles(
        dir,
        planned.map((f) => f.path),
      )
    ).map((f) => [f.path, f.sha256]),
  );
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

/** The account's name, or null when the token may not list accounts (a Service Account) or the list fails. */
export async function accountNameOf(client: ApiClient, account: string): Promise<string | null> {
  try {
    return (await listAccounts(client)).find((a) => a.account_id === account)?.name ?? null;
  } catch {
    return null;
  }
}

/** The state location as a plan records it: a URL without its password, or the file relative to the configuration folder. */
export function stateRecord(workspace: Workspace): PlanOrigin['state'] {
  // The URL as given, not the store's `path`: for a database that is a message (masked URL, account, workspace),
  // which no --state or CPLANE_STATE in the applying job could match. The plan keeps it with no credentials at all.
  if (workspace.statePath !== undefined && isStateUrl(workspace.statePath)) return { url: urlWithoutPasswords(workspace.statePath) };
  return { path: recordedStatePath(workspace.dir, workspace.state.path) };
}

export async function planOrigin(ctx: CommandContext, workspace: Workspace, accountName: string | null): Promise<PlanOrigin> {
  return {
    workspace: workspace.workspace,
    ...(ctx.deployment ? { deployment: ctx.deployment.name } : {}),
    ...(ctx.deployment?.fleet ? { fleet: ctx.deployment.fleet } : {}),
    ...(ctx.deployment?.run ? { run: ctx.deployment.run } : {}),
    accountName,
    configDir: relativePosix(ctx.cwd, workspace.dir),
    files: await plannedFiles(workspace.dir, workspace.desired.files),
    variables: workspace.desired.variables,
    state: stateRecord(workspace),
  };
}
