// Makes the bundle's code cache (bin/code-cache.js explains it): `npm run build` runs this after scripts/bundle.mjs.
// First every bundle file gets what V8 compiles before running anything (but those that import a module outside the
// bundle: scripts/bundle.mjs lists them); then the built CLI runs a few commands on
// examples/quickstart against the emulator, as the demo does, each in a child that starts from the caches so far and
// keeps, at its exit, every function that ran. What the commands print is not shown unless one fails.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Script } from 'node:vm';

const require = createRequire(import.meta.url);
const { useCodeCache, writeCodeCache } = require('../bin/code-cache.js');
// Before anything compiles: the caches are made under the flags the CLI runs with (bin/v8-flags.js).
require('../bin/v8-flags.js').setV8Flags();
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'cplane.js');
const bundle = join(root, 'dist', 'bundle');

const [role, ...args] = process.argv.slice(2);
if (role === '--run') {
  // A child: the CLI as bin/cplane.js starts it, with ARGS; at exit, its caches are written.
  const compiled = useCodeCache();
  process.on('exit', () => writeCodeCache(compiled));
  process.argv = [process.argv[0], bin, ...args];
  require(join(bundle, 'cplane.cjs'));
} else {
  const uncached = new Set(JSON.parse(readFileSync(join(bundle, 'dynamic-imports.json'), 'utf8')));
  const files = ['cplane.cjs', ...readdirSync(join(bundle, 'chunks')).map((name) => `chunks/${name}`)]
    .filter((name) => name.endsWith('.cjs') && !uncached.has(name))
    .map((name) => join(bundle, name));
  writeCodeCache(
    new Map(files.map((filename) => [filename, { script: new Script(Module.wrap(readFileSync(filename, 'utf8')), { filename }) }])),
  );

  const { startEmulator } = await import('../dist/emulator/index.js');
  const { fixtures } = await import('../dist/emulator/fixtures.js');
  const example = join(root, 'examples', 'quickstart');
  const emulator = await startEmulator({});
  const temp = mkdtempSync(join(tmpdir(), 'cplane-code-cache-'));
  const demoEnv = Object.fromEntries(
    readFileSync(join(example, 'demo.env'), 'utf8')
      .split(/\r?\n/)
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const env = {
    PATH: process.env.PATH,
    HOME: temp,
    XDG_CONFIG_HOME: join(temp, 'config'),
    NO_COLOR: '1',
    ...demoEnv,
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_STATE_KEY: randomBytes(32).toString('base64'),
  };
  const common = [example, '--account', fixtures.accounts[0].id, '--state', join(temp, 'state.json')];
  try {
    for (const command of [
      ['validate', example],
      ['apply', ...common, '--auto-approve'],
      ['plan', ...common],
      ['output', ...common],
      ['api', 'listProjects', '--account', fixtures.accounts[0].id],
    ]) {
      // Not spawnSync: the emulator answers from this process.
      await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), '--run', ...command], { cwd: temp, env }).catch(
        (error) => {
          throw new Error(`code cache: \`cplane ${command[0]}\` exited with ${error.code}:\n${error.stdout}${error.stderr}`);
        },
      );
    }
  } finally {
    await emulator.close();
    rmSync(temp, { recursive: true, force: true });
  }
}
