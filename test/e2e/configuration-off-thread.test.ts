// The configuration's worker thread (src/session/configuration-off-thread.ts), built: the tests run the sources, where
// the configuration loads in the thread, so the worker path is tested here against the build. tsc's module
// (dist/session/) starts the bundle's worker entry (dist/bundle/chunks/configuration-worker.cjs) and answers what
// loading in the thread answers, for a valid configuration (with a variable from the environment it was given, the
// worker's own env) and an invalid one; the CLI starts that entry from `cplane access report`: seen in the CPU
// profile Node writes per thread.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfiguration } from '../../src/providers/index.js';
import type * as OffThread from '../../src/session/configuration-off-thread.js';
import type * as SafeText from '../../src/text/safe-text.js';
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

const built = async (): Promise<typeof OffThread> => (await import(pathToFileURL(builtModule('session/configuration-off-thread.js')).href)) as typeof OffThread;

describe('the built loader', () => {
  it('loads on its worker and answers what loading in this thread answers, with the environment it was given', async () => {
    const dir = folder('valid', valid);
    const options = { env: { CPLANE_VAR_team: 'blue' }, cwd: dir };
    const { loadedIn, ...answered } = await (await built()).loadConfigurationOffThread(dir, options);
    expect(loadedIn).toBe('worker');
    expect(answered).toEqual(await loadConfiguration(dir, options));
    expect(answered.desired?.variables).toEqual({ team: 'blue' });
  });

  it('answers a broken configuration\'s diagnostics as this thread does, with their places', async () => {
    const dir = folder('broken', 'version: 1\nprojects:\n  vault:\n    name: vault\n    colour: blue\n');
    const { loadedIn, ...answered } = await (await built()).loadConfigurationOffThread(dir, { env: {}, cwd: dir });
    expect(loadedIn).toBe('worker');
    expect(answered.desired).toBeUndefined();
    expect(answered.diagnostics.map((d) => [d.code, d.range])).toEqual([['unknown_key', { file: 'main.yaml', line: 5, col: 5 }]]);
    expect(answered).toEqual(await loadConfiguration(dir, { env: {}, cwd: dir }));
  });

  it('registers the state URL\'s password for redaction in this thread, as loading here does', async () => {
    const password = 'off-thread-state-pw-7c1d9e';
    const dir = folder('state-url', `version: 1\nstate: { url: "postgres://cplane:${password}@db.example:5432/cplane" }\n`);
    const { loadedIn, desired } = await (await built()).loadConfigurationOffThread(dir, { env: {}, cwd: dir });
    expect(loadedIn).toBe('worker');
    expect(desired?.stateUrl).toContain(password);
    // The built modules' own redactor, the one the built CLI prints through.
    const { safeText } = (await import(pathToFileURL(builtModule('text/safe-text.js')).href)) as typeof SafeText;
    expect(safeText(`connecting to ${desired!.stateUrl!}`)).not.toContain(password);
  });
});

/** The frames each thread of one `cplane access report` ran (`file function`), from the CPU profile Node writes per thread. */
function threadsOf(dir: string, name: string, env: NodeJS.ProcessEnv): string[][] {
  const profiles = join(temp, name);
  // No API listens on port 9: the command fails after loading; what matters is which threads ran what.
  spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profiles}`, builtCli(), 'access', 'report', dir], {
    env: { PATH: process.env.PATH, HOME: temp, CPLANE_BASE_URL: 'http://127.0.0.1:9', CPLANE_TOKEN: 'sk-svc-pat-offthread', CPLANE_REQUEST_TIMEOUT: '1', ...env },
    encoding: 'utf8',
  });
  return readdirSync(profiles).map((file) => {
    const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as { nodes: { callFrame: { url: string; functionName: string } }[] };
    return profile.nodes.map((n) => `${n.callFrame.url.split('/').pop()} ${n.callFrame.functionName}`);
  });
}

describe('the CLI\'s bundle', () => {
  const dir = () => folder('cli', valid.replace('${var.team}', 'x').replace(/variables:\n.*\n/, ''));

  it('loads the configuration of `cplane access report` on the worker entry of the bundle', () => {
    const threads = threadsOf(dir(), 'profiles-account', { CPLANE_ACCOUNT: 'a' });
    expect(threads).toHaveLength(2);
    const worker = threads.find((frames) => frames.some((f) => f.startsWith('configuration-worker.cjs')));
    expect(worker).toBeDefined();
    expect(worker!.some((f) => / loadConfig$/.test(f))).toBe(true);
  });

  it('starts no worker when no account is known before the configuration: nothing would overlap', () => {
    const threads = threadsOf(dir(), 'profiles-none', {});
    expect(threads).toHaveLength(1);
    expect(threads[0]!.some((f) => / loadConfig$/.test(f))).toBe(true);
  });
});
