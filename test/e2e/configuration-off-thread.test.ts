// The configuration's worker thread (src/session/configuration-off-thread.ts), built: the tests run the sources, where
// the configuration loads in the thread, so the worker path is tested here against the build. tsc's module
// (dist/session/) starts the bundle's worker entry (dist/bundle/chunks/configuration-worker.cjs) and answers what
// loading in the thread answers, for a valid configuration (with a variable from the environment it was given, the
// worker's own env) and an invalid one; the CLI starts that entry from `cplane access report`: seen in what each
// thread of the process loaded (a module preloaded with --require, which a worker inherits, lists it at the thread's
// exit).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfiguration } from '../../src/providers/index.js';
import type * as OffThread from '../../src/session/configuration-off-thread.js';
import { builtCli, builtModule } from '../helpers/built-cli.js';

const temp = mkdtempSync(join(tmpdir(), 'cplane-off-thread-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function folder(name: string, yaml: string): string {
  const dir = join(temp, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.yaml'), yaml);
  return dir;
}

const valid = `version: 1
variables:
  team: { type: string }
projects:
  vault:
    name: "vault-\${var.team}"
    records:
      db-password: { value: { generate: { length: 32 } } }
`;

const built = async (): Promise<typeof OffThread> =>
  (await import(pathToFileURL(builtModule('session/configuration-off-thread.js')).href)) as typeof OffThread;

describe('the built loader', () => {
  it('loads on its worker and answers what loading in this thread answers, with the environment it was given', async () => {
    const dir = folder('valid', valid);
    const options = { env: { CPLANE_VAR_team: 'blue' }, cwd: dir };
    const { loadedIn, ...answered } = await (await built()).loadConfigurationOffThread(dir, options);
    expect(loadedIn).toBe('worker');
    expect(answered).toEqual(await loadConfiguration(dir, options));
    expect(answered.desired?.variables).toEqual({ team: 'blue' });
  });

  it("answers a broken configuration's diagnostics as this thread does, with their places", async () => {
    const dir = folder('broken', 'version: 1\nprojects:\n  vault:\n    name: vault\n    colour: blue\n');
    const { loadedIn, ...answered } = await (await built()).loadConfigurationOffThread(dir, { env: {}, cwd: dir });
    expect(loadedIn).toBe('worker');
    expect(answered.desired).toBeUndefined();
    expect(answered.diagnostics.map((d) => [d.code, d.range])).toEqual([['unknown_key', { file: 'main.yaml', line: 5, col: 5 }]]);
    expect(answered).toEqual(await loadConfiguration(dir, { env: {}, cwd: dir }));
  });

  it("refuses a state URL's committed password on its worker, and its diagnostic does not show it", async () => {
    const password = 'off-thread-state-pw-7c1d9e';
    const dir = folder('state-url', `version: 1\nstate: { url: "postgres://cplane:${password}@db.example:5432/cplane" }\n`);
    const { loadedIn, desired, diagnostics } = await (await built()).loadConfigurationOffThread(dir, { env: {}, cwd: dir });
    expect(loadedIn).toBe('worker');
    expect(desired).toBeUndefined();
    expect(diagnostics.map((d) => d.code)).toEqual(['state_url_password']);
    expect(JSON.stringify(diagnostics)).not.toContain(password);
  });
});

/** The bundle files each thread of one `cplane access report` loaded, the main thread's first. */
function threadsOf(dir: string, name: string, env: NodeJS.ProcessEnv): string[][] {
  const out = join(temp, `${name}.jsonl`);
  const preload = join(temp, 'threads.cjs');
  writeFileSync(
    preload,
    `const { isMainThread } = require('node:worker_threads');\n` +
      `process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(out)}, JSON.stringify({ isMainThread, files: Object.keys(require.cache).filter((f) => f.includes('/dist/bundle/')).map((f) => f.split('/').pop().replace(/-[\\w-]{8}\\.cjs$/, '.cjs')) }) + '\\n'));\n`,
  );
  // No API listens on port 9: the reads fail at once (the deadline is 50 ms) and the command, which reports the
  // configuration's problems first, waits for the worker before it fails; what matters is which threads loaded what.
  spawnSync(process.execPath, ['--require', preload, builtCli(), 'access', 'report', dir], {
    env: {
      PATH: process.env.PATH,
      HOME: temp,
      CPLANE_BASE_URL: 'http://127.0.0.1:9',
      CPLANE_TOKEN: 'sk-svc-pat-offthread',
      CPLANE_REQUEST_TIMEOUT: '0.05',
      ...env,
    },
    encoding: 'utf8',
  });
  const threads = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { isMainThread: boolean; files: string[] });
  return threads.sort((a, b) => Number(b.isMainThread) - Number(a.isMainThread)).map((thread) => thread.files);
}

describe("the CLI's bundle", () => {
  const dir = () => folder('cli', valid.replace('${var.team}', 'x').replace(/variables:\n.*\n/, ''));

  it('loads the configuration of `cplane access report` on the worker entry of the bundle', () => {
    const [main, worker, ...more] = threadsOf(dir(), 'threads-account', { CPLANE_ACCOUNT: 'a' });
    expect(more).toEqual([]);
    expect(main).not.toContain('configuration-worker.cjs');
    expect(worker).toEqual(expect.arrayContaining(['configuration-worker.cjs', 'config.cjs']));
  });

  it('starts no worker when no account is known before the configuration: nothing would overlap', () => {
    const [main, ...more] = threadsOf(dir(), 'threads-none', {});
    expect(more).toEqual([]);
    expect(main).toEqual(expect.arrayContaining(['cplane.cjs', 'config.cjs']));
    expect(main).not.toContain('configuration-worker.cjs');
  });
});
