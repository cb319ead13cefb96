/**
 * The built CLI that tests start, as a user runs it: bin/cplane.js, which
 * starts dist/bundle/ (and the dist/ modules a test child imports). Every test
 * that starts it gets its path here, and so fails with a message saying what
 * to do when dist/ is missing or older than the sources it is built from,
 * instead of quietly testing yesterday's code. `npm test` builds first;
 * `npx vitest run FILE` after changing src/ needs `npm run build`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** What `npm run build` reads: a change to any of these makes dist/ stale. */
const buildInputs = ['src', 'schema', 'scripts/bundle.mjs', 'scripts/compile-schemas.mjs', 'scripts/compile-result-checks.mjs', 'tsconfig.build.json', 'package.json'];
/** Written last by `npm run build` (scripts/bundle.mjs), so its time is when the build finished. */
const buildStamp = 'dist/bundle/help.json';

function newestFile(root: string, path: string): { path: string; mtimeMs: number } | undefined {
  const stat = statSync(join(root, path), { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (!stat.isDirectory()) return { path, mtimeMs: stat.mtimeMs };
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(join(root, path))) {
    const found = newestFile(root, join(path, entry));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** Why the build in `root` cannot be trusted to be the sources' (missing, or older than a source), or undefined when it can. */
export function staleBuild(root: string): string | undefined {
  const built = statSync(join(root, buildStamp), { throwIfNoEntry: false });
  if (!built) return `dist/ is missing or incomplete (no ${buildStamp}): run \`npm run build\` before the tests that start the CLI (\`npm test\` builds first).`;
  const newest = buildInputs.map((input) => newestFile(root, input)).reduce((a, b) => (b && (!a || b.mtimeMs > a.mtimeMs) ? b : a), undefined);
  if (newest && newest.mtimeMs > built.mtimeMs) {
    return `dist/ is older than the sources: ${relative(root, join(root, newest.path))} changed after the last build. Run \`npm run build\`, then the tests again (\`npm test\` builds first).`;
  }
  return undefined;
}

let fresh = false;

/** Throws the message of `staleBuild` when the build is stale; checked once per test process. */
export function assertFreshBuild(): void {
  if (fresh) return;
  const problem = staleBuild(repoRoot);
  if (problem) throw new Error(problem);
  fresh = true;
}

/** The path of bin/cplane.js, once the build is known to be fresh. */
export function builtCli(): string {
  assertFreshBuild();
  return join(repoRoot, 'bin', 'cplane.js');
}

/** The path of a built module, e.g. `state/index.js` -> dist/state/index.js, once the build is known to be fresh. */
export function builtModule(path: string): string {
  assertFreshBuild();
  return join(repoRoot, 'dist', path);
}
