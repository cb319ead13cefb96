// `npm run build`: the compiled schemas, the JavaScript of dist/ (tsc, types not checked: that is `npm run
// typecheck`) and the compiled checks of the API's answers; beside those, the SDK package (packages/sdk) and then the
// type declarations of the `cplane/sdk` export; when both the SDK and dist/ are there, the bundle and its code cache.
// On two cores the two lines of work take about as long each.
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));

/** Runs `node ARGS` in the repository, its output passed through; rejects when it fails. */
function node(...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`\`node ${args.join(' ')}\` failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

async function inOrder(...steps) {
  for (const step of steps) await node(...step);
}

// Written when every step has succeeded: scripts/build-if-stale.mjs compares the sources' times with its time.
const stamp = `${root}dist/build-done`;

try {
  rmSync(stamp, { force: true });
  const sdk = node(tsc, '-p', 'packages/sdk/tsconfig.json');
  await Promise.all([
    // Emitting without checking needs none of the SDK's declarations; the bundle needs its JavaScript.
    inOrder(['scripts/compile-schemas.mjs'], [tsc, '-p', 'tsconfig.build.json', '--noCheck'], ['scripts/compile-result-checks.mjs'])
      .then(() => sdk)
      .then(() => inOrder(['scripts/bundle.mjs'], ['scripts/code-cache.mjs'])),
    sdk.then(() => node(tsc, '-p', 'tsconfig.sdk.json')),
  ]);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
} catch (error) {
  console.error(`build: ${error.message}`);
  process.exitCode = 1;
}
