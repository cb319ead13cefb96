// Bundles what action.yml runs into action/dist/, so a workflow's job runs the action with Node and nothing
// installed: no `npm ci`, no dev dependencies, no install scripts (docs/ci.md). git ignores action/dist/: the release
// workflow (.github/workflows/release.yml) commits it onto the action's release ref, never onto main.
//   cplane.mjs       the CLI (`validate`, `plan`, `apply`, `drift`, `reconcile` with --github)
//   pr-comment.mjs   the pull-request comment step (src/github/pr-comment-main.ts)
//   drift-issue.mjs  the drift and reconcile issue step (src/github/drift-issue-main.ts)
//   cel.mjs          the CEL library, which the policy worker imports by its file (src/policy/cel-module.ts)
// plus the chunks that only some commands load. It reads the compiled dist/ (run after `npm run build`, as
// `npm run build:action` does), and writes to action/dist/, or to the folder given as its argument
// (test/helpers/action-bundle.ts builds into dist/action-bundle/ for the tests that run the action).
// The same bundler and the same reading of dist/ as the CLI's bundle (scripts/bundle.mjs), but ES modules:
// Ink's top-level await then needs no special loading, and the files are not the installed CLI's.
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = resolve(process.argv[2] ?? `${root}action/dist`);
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));

/**
 * Modules replaced in the action's bundle. The version is read from package.json at run time, and the
 * action's folder has none; the CEL library is a file beside the bundle, not a package in node_modules.
 */
const replaced = {
  [`${root}dist/version.js`]: `export const version = ${JSON.stringify(version)};\n`,
  [`${root}dist/policy/cel-module.js`]: `export const celModuleUrl = () => new URL('./cel.mjs', import.meta.url).href;\n`,
};

rmSync(outDir, { recursive: true, force: true });
await build({
  cwd: root,
  input: {
    cplane: 'dist/cli/main.js',
    'pr-comment': 'dist/github/pr-comment-main.js',
    'drift-issue': 'dist/github/drift-issue-main.js',
    cel: 'node_modules/@marcbachmann/cel-js/lib/index.js',
  },
  platform: 'node',
  // `cplane mcp`'s SDK (and zod, which it uses) and `cplane lsp`'s protocol library, which the action never runs, and
  // what Ink and the PostgreSQL driver load only when asked (React's developer tools, the native driver, Cloudflare's sockets).
  external: [
    /^node:/,
    /^@modelcontextprotocol\//,
    /^zod(\/|$)/,
    /^vscode-languageserver/,
    'react-devtools-core',
    'pg-native',
    'cloudflare:sockets',
  ],
  plugins: [{ name: 'cplane-action-modules', load: (id) => replaced[id] }],
  logLevel: 'warn',
  output: {
    dir: outDir,
    format: 'esm',
    // One folder: the CEL module's URL above is relative to whichever file holds it.
    entryFileNames: '[name].mjs',
    chunkFileNames: '[name].mjs',
    minify: true,
  },
});
