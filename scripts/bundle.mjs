// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/: the entry (cplane.cjs), a chunk for
// the configuration language, one for the engine behind plan and apply, and chunks for what only some
// commands load (the Ink views, the emulator, export, `cplane api`, MCP, TypeBox, `cplane lsp` with vscode-languageserver). Loading ~400 small
// ES modules cost most of a short command's time, about a millisecond each; a chunk costs one read.
// Run by `npm run build` after tsc (docs/performance.md). Ink, React, the PostgreSQL driver and the
// MCP SDK stay outside: only the commands that need them load them, and they load their own optional
// parts at run time.
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = `${root}dist/bundle`;
const external = [/^node:/, /^ink(\/|$)/, /^react(\/|$)/, /^pg(\/|$)/, /^@modelcontextprotocol\//, /^zod(\/|$)/];

/**
 * What every run loads: the command list and what it needs to print help, a version or an error. They
 * stay in the entry even though the chunks loaded later import them too, so a command reads the entry
 * and its chunks, not one file per shared module.
 */
const startModules = new RegExp(
  `^${root}dist/(errors|version|package-files|text/safe-text|config/(suggest|own-variables)|cli/(main|describe-error|commands/index|flags)|session/errors)\\.js$`,
);

const ours = (pattern) => `${root}dist/(${pattern})\\.js$`;
const deps = (names) => `${root}node_modules/(${names})/`;
/** What `validate` needs besides the start: the configuration language, YAML, the schema checks. */
const configModules = new RegExp(
  `^(${ours('config/[^/]+|generated/config-schema|github/[^/]+|cli/(commands/validate|github-flag)|session/variables-flags')}|${deps('yaml|ajv/dist/runtime/(ucs2length|equal)\\.js$|ajv-formats/dist/formats\\.js$|fast-deep-equal')})`,
);
/**
 * What `plan`, `apply`, `destroy`, `output` and the state commands need besides: the client, the state, the
 * planner, the applier and the plain-text views. Not the Ink views (ui/*.tsx), which only an interactive
 * apply loads, nor the emulator, export, `cplane api` and MCP.
 */
const engineModules = new RegExp(
  `^(${ours(
    // Not the readers' cryptography (HPKE and its hashes, in @cplane/sdk): only `read`, the key ring and the emulator
    // load it; the SDK's modules the engine imports (transport, retry, the value binding) follow their importers.
    'api/(client|errors|limiter|routes|result-check)|generated/(state-schema|result-checks)|crypto/.+|(state|providers|policy|planner|plan-model|render|applier)/.+|' +
      'ui/(plain-lines|summary-text|progress-model|words)|cli/(commands/(plan|drift|apply|destroy|output|state|state-transfer|force-unlock)|[a-z-]+)|session/(?!configuration-worker)[a-z-]+',
  )}|${deps('@noble/ciphers|pg-connection-string|diff')})`,
);

rmSync(outDir, { recursive: true, force: true });
const { output } = await build({
  cwd: root,
  // The configuration's worker thread (src/session/configuration-off-thread.ts) is an entry of its own, written
  // as chunks/configuration-worker.cjs (no hash: that module looks for it by name), beside the chunks it loads.
  input: { cplane: 'dist/cli/main.js', 'configuration-worker': 'dist/session/configuration-worker.js' },
  platform: 'node',
  external,
  // yaml's ES module build (the one it gives browsers; it needs nothing of Node's), so the bundle keeps
  // only the parts cplane calls and loads them without CommonJS wrappers. Its Node build is the same code.
  resolve: { alias: { yaml: `${root}node_modules/yaml/browser/index.js` } },
  // The entry is a program, not a library: nothing imports its exports.
  preserveEntrySignatures: false,
  // applier/key-ring.ts imports the SDK's data-key wrap when it first wraps (a plan never loads HPKE in the
  // compiled dist/); in the bundle the emulator imports it statically, so it shares a chunk, as intended. The
  // warning said so on every install, with raw colour codes in npm's log.
  checks: { ineffectiveDynamicImport: false },
  // Only the entry runs anything when it is loaded: every other module of ours (and the bundler's helpers)
  // only declares. So a module that imports one name from a folder's index does not load the whole folder,
  // and the entry does not load the helpers' chunk just to run it. Dependencies are taken as they are.
  treeshake: {
    moduleSideEffects: (id) =>
      id.startsWith(`${root}node_modules/`) || [`${root}dist/cli/main.js`, `${root}dist/session/configuration-worker.js`].includes(id),
  },
  logLevel: 'warn',
  output: {
    dir: outDir,
    // CommonJS: an ES module as the first file costs Node about 5 ms of loader set-up, which is a tenth of
    // `validate` and more than that of `--help`. Ink, the one ES-only dependency (a top-level await in
    // yoga), is loaded with import() by src/ui/ink.ts, which CommonJS keeps.
    format: 'cjs',
    // V8 keeps each file's source in the heap for as long as the process runs, and a single character beyond
    // Latin-1 (an arrow, an ellipsis in a message) makes it a two-byte string: the config and engine chunks took
    // 3.5 MB that way. So strings are written with escapes, and the doc comments (the source maps lead to them)
    // are left out: one-byte sources of 1.1 MB, and less for V8 to read. What stays live from the start counts
    // several times over, since V8 lets the heap grow to a multiple of it before it collects again.
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
    entryFileNames: (chunk) => (chunk.name === 'cplane' ? '[name].cjs' : 'chunks/[name].cjs'),
    chunkFileNames: 'chunks/[name]-[hash].cjs',
    sourcemap: true,
    codeSplitting: {
      groups: [
        // The one module of ours that `import()`s a module outside the bundle (the PostgreSQL driver), alone, so
        // that the engine keeps its code cache (bin/code-cache.js): Node compiles this small file each time.
        { name: 'postgres-driver', test: new RegExp(`^${ours('state/postgres/connect')}`), priority: 4 },
        { name: 'start', test: startModules, priority: 3 },
        { name: 'config', test: configModules, priority: 2 },
        { name: 'engine', test: engineModules, priority: 1 },
      ],
    },
  },
});

// What bin/cplane.js prints for `--help` and `--version` without loading the bundle: the same text,
// from the same functions, written once here.
const { globalHelp } = await import(`${root}dist/cli/main.js`);
const { version } = await import(`${root}dist/version.js`);
writeFileSync(`${outDir}/help.json`, `${JSON.stringify({ version, help: globalHelp() })}\n`);

// The files that `import()` a module outside the bundle (Ink, the PostgreSQL driver): scripts/code-cache.mjs makes no cache for them.
const inBundle = new Set(output.map((file) => file.fileName));
const dynamicImports = output
  .filter((file) => file.type === 'chunk' && file.dynamicImports.some((id) => !inBundle.has(id)))
  .map((file) => file.fileName);
writeFileSync(`${outDir}/dynamic-imports.json`, `${JSON.stringify(dynamicImports)}\n`);
