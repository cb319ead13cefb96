/**
 * The GitHub Action as a release ships it, built from the sources: `action.yml` and `action/dist/` (what
 * `npm run build:action` makes), in a folder of their own with no node_modules and no package.json, which is what a
 * workflow's job checks out at a release tag. The bundle is not committed (a release builds it: docs/ci.md), so the
 * tests that run the action build it here, once per build of dist/: it is kept in dist/action-bundle/ beside the
 * build stamp it was made from, and rebuilt when dist/ is.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertFreshBuild } from './built-cli.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const cache = join(repoRoot, 'dist', 'action-bundle');
const stampOf = () => String(statSync(join(repoRoot, 'dist', 'build-done')).mtimeMs);

/** Builds action/dist/ into dist/action-bundle/dist/ unless it is there from this build of dist/; returns that folder. */
export function builtActionBundle(): string {
  assertFreshBuild();
  const stampFile = join(cache, 'built-from');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stampOf()) return join(cache, 'dist');
  // Built aside and renamed into place: two test workers that build at once each end with a whole bundle.
  mkdirSync(join(repoRoot, 'dist'), { recursive: true });
  const aside = mkdtempSync(join(repoRoot, 'dist', 'action-bundle-'));
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'bundle-action.mjs'), join(aside, 'dist')], { stdio: 'pipe' });
  writeFileSync(join(aside, 'built-from'), stampOf());
  rmSync(cache, { recursive: true, force: true });
  try {
    renameSync(aside, cache);
  } catch {
    rmSync(aside, { recursive: true, force: true });
  }
  return join(cache, 'dist');
}

/** A new folder holding only what a job that uses the action checks out: action.yml and action/dist/ (github.action_path). */
export function actionCopy(into: string): string {
  const bundle = builtActionBundle();
  mkdirSync(into, { recursive: true });
  cpSync(join(repoRoot, 'action.yml'), join(into, 'action.yml'));
  cpSync(bundle, join(into, 'action', 'dist'), { recursive: true });
  return into;
}
