// `npm test` and `npm start` run this first: it builds (`npm run build`) only when dist/ is missing or older than a source, so
// a second run of the tests does not spend half a minute rebuilding what did not change. The tests that start
// the CLI check the same thing with the same function (test/helpers/built-cli.ts) and fail, saying to build,
// when the build is stale; `npm run build` always builds.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `npm run build` reads: a change to any of these makes dist/ stale. */
const buildInputs = [
  'src',
  'packages/sdk/src',
  'schema',
  'scripts/build.mjs',
  'scripts/bundle.mjs',
  'scripts/code-cache.mjs',
  'scripts/compile-schemas.mjs',
  'scripts/compile-result-checks.mjs',
  'tsconfig.build.json',
  'tsconfig.sdk.json',
  'tsconfig.json',
  'package.json',
];
/** Written by `npm run build` (scripts/build.mjs) once every step has succeeded, so its time is when the build finished. */
const buildStamp = 'dist/build-done';

function newestFile(root, path) {
  const stat = statSync(join(root, path), { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (!stat.isDirectory()) return { path, mtimeMs: stat.mtimeMs };
  let newest;
  for (const entry of readdirSync(join(root, path))) {
    const found = newestFile(root, join(path, entry));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** Why the build in `root` cannot be trusted to be the sources' (missing, or older than a source), or undefined when it can. */
export function staleBuild(root) {
  const built = statSync(join(root, buildStamp), { throwIfNoEntry: false });
  if (!built)
    return `dist/ is missing or incomplete (no ${buildStamp}): run \`npm run build\` before the tests that start the CLI (\`npm test\` builds first).`;
  const newest = buildInputs
    .map((input) => newestFile(root, input))
    .reduce((a, b) => (b && (!a || b.mtimeMs > a.mtimeMs) ? b : a), undefined);
  if (newest && newest.mtimeMs > built.mtimeMs) {
    return `dist/ is older than the sources: ${relative(root, join(root, newest.path))} changed after the last build. Run \`npm run build\`, then the tests again (\`npm test\` builds first).`;
  }
  return undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const why = staleBuild(root);
  if (why === undefined) {
    process.stdout.write('dist/ is newer than every source: not rebuilt (`npm run build` builds anyway).\n');
  } else {
    process.stdout.write(`Building: ${why.split(':')[0]}.\n`);
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    process.exitCode = build.status ?? 1;
  }
}
