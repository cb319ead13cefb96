/**
 * The built CLI that tests start, as a user runs it: bin/cplane.js, which
 * starts dist/bundle/ (and the dist/ modules a test child imports). Every test
 * that starts it gets its path here, and so fails with a message saying what
 * to do when dist/ is missing or older than the sources it is built from,
 * instead of quietly testing yesterday's code. `npm test` builds first when
 * dist/ is stale (scripts/build-if-stale.mjs, the same check);
 * `npx vitest run FILE` after changing src/ needs `npm run build`.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleBuild } from '../../scripts/build-if-stale.mjs';

export { staleBuild };

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

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
