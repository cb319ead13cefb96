/**
 * `--changed [--base REF]` (plan --all, apply --all): only the deployments a git diff touches. A changed
 * variable file of some deployments (`varFiles`) touches those; any other changed file of the configuration
 * folder (its YAML, a subfolder) or of a module's folder (`modules: { X: { source } }`) touches every
 * deployment; other files touch none. The diff is `git diff --name-only REF` (default HEAD: what is not committed
 * yet), plus files git does not track yet, in the repository that holds the configuration folder.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import type { Deployment } from '../../config/index.js';
import { AbortError } from '../../errors.js';

function git(dir: string, args: string[]): string {
  try {
    return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new AbortError(
      `--changed could not read the git diff in ${dir}: ${stderr || (error as Error).message}`,
      'Run it in a git checkout, and give --base a commit or branch that exists (e.g. --base origin/main).',
    );
  }
}

/** The module folders the configuration's files call, absolute. */
function moduleFolders(dir: string): string[] {
  const folders: string[] = [];
  for (const name of readdirSync(dir).filter((n) => /\.ya?ml$/i.test(n))) {
    let value: unknown;
    try {
      value = parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      continue;
    }
    const modules = (value as { modules?: Record<string, { source?: unknown }> } | null)?.modules;
    for (const call of Object.values(modules ?? {})) if (typeof call?.source === 'string') folders.push(resolve(dir, call.source));
  }
  return folders;
}

const inside = (folder: string, path: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

export function changedDeployments(
  dir: string,
  deployments: readonly Deployment[],
  base: string,
): { chosen: Deployment[]; changed: string[] } {
  const root = git(dir, ['rev-parse', '--show-toplevel']).trim();
  const listed = [
    ...git(dir, ['diff', '--name-only', base, '--']).split('\n'),
    ...git(dir, ['ls-files', '--others', '--exclude-standard', '--full-name', '--', '.']).split('\n'),
  ];
  const changed = [...new Set(listed.filter(Boolean).map((path) => resolve(root, path)))];
  const shared = [dir, ...moduleFolders(dir)];
  const touchesAll = changed.some(
    (path) => !deployments.some((d) => d.varFiles.includes(path)) && shared.some((folder) => inside(folder, path)),
  );
  const chosen = touchesAll ? [...deployments] : deployments.filter((d) => d.varFiles.some((file) => changed.includes(file)));
  return { chosen, changed };
}
