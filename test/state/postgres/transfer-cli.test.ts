/**
 * The real CLI moving a state between a local file and PostgreSQL: migrate
 * there and back keeps every entry (sealed token included), history lists the
 * versions, pull prints the state with its secrets still sealed, and push
 * refuses another lineage or an older serial. No output shows the password. The first migration runs the built
 * binary (the bundle reaches PostgreSQL); the other commands run the CLI's entry in-process.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, parseStateFile } from '../../../src/state/index.js';
import { withDatabase } from '../../helpers/postgres.js';
import { runInProcess } from '../../helpers/in-process-cli.js';
import { authenticResource, makeSandbox, newKey, resource, runCplane } from '../helpers.js';
import type { Sandbox } from '../helpers.js';
import { schemaUrl } from './helpers.js';

const TOKEN = 'gwt_cd34_plaintext_secret';
const database = withDatabase();

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let url: string;
let password: string;

const cplane = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runInProcess(args, { ...env, ...extraEnv }, box.configDir);

beforeEach(async () => {
  box = makeSandbox();
  mkdirSync(box.configDir, { recursive: true });
  env = { ...box.env, CPLANE_STATE_KEY: newKey() };
  ({ url } = schemaUrl(database().url));
  password = new URL(url).password;
  const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'seed', lock: true });
  await store.update((draft) => {
    draft.resources['project.web'] = resource('project', 'prj_1', { inputs: { name: 'web' } });
    draft.resources['gateway_token.prod/ci'] = resource('gateway_token', 'tok_1', {
      parents: { gatewayId: 'gw_1' },
      sealed: { plaintext: store.crypto.seal('gateway_token.prod/ci', TOKEN) },
    });
  });
  await store.close();
});
afterEach(() => box.cleanup());

describe('cplane state migrate / history / pull / push', () => {
  it('migrates a local state to PostgreSQL and back, with every entry and the sealed token', { timeout: 180_000 }, async () => {
    const there = await runCplane(['state', 'migrate', '--to', url, '--account', 'acc_1'], box.configDir, env);
    expect(there.stderr).toBe('');
    expect(there.stdout).toMatch(
      /^Copied the state \(serial 1, 2 resources\) from .*state\.json to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+\?schema=\w+ \(account acc_1, workspace default\)\.\n/,
    );
    expect(there.stdout).not.toContain(password);

    // The database copy is a working state: the CLI reveals the token from it, and changes it under its lock.
    expect((await cplane(['output', 'gateway_token.prod/ci', '--reveal', '--account', 'acc_1', '--state', url])).stdout).toBe(`${TOKEN}\n`);
    expect((await cplane(['state', 'rm', 'project.web', '--account', 'acc_1'], { CPLANE_STATE: url })).code).toBe(0);

    const history = await cplane(['state', 'history', '--account', 'acc_1', '--state', url, '--json']);
    const versions = (JSON.parse(history.stdout) as { versions: { serial: number; command: string }[] }).versions;
    expect(versions.map((v) => [v.serial, v.command])).toEqual([
      [2, 'state rm project.web'],
      [1, 'cplane state migrate (cplane state migrate)'],
    ]);
    const lines = await cplane(['state', 'history', '--account', 'acc_1', '--state', url]);
    expect(lines.stdout.split('\n')[1]).toMatch(
      /^ {5}2 {2}\d{4}-\d\d-\d\dT[\d:.]+Z {2}\S+@\S+ {2}`state rm project\.web` {2}1 change\(s\), \d+ bytes$/,
    );

    const back = join(box.root, 'back.json');
    const home = await cplane(['state', 'migrate', '--to', back, '--account', 'acc_1', '--state', url]);
    expect(home.stdout).toContain(`to ${back}.`);
    const copy = parseStateFile(readFileSync(back, 'utf8'), back);
    expect(copy.serial).toBe(2);
    expect(Object.keys(copy.resources)).toEqual(['gateway_token.prod/ci']);
    expect((await cplane(['output', 'gateway_token.prod/ci', '--reveal', '--account', 'acc_1', '--state', back])).stdout).toBe(
      `${TOKEN}\n`,
    );
  });

  it(
    'pull prints the state with secrets sealed; push takes a newer serial and refuses older ones and other lineages',
    { timeout: 180_000 },
    async () => {
      expect((await cplane(['state', 'migrate', '--to', url, '--account', 'acc_1'])).code).toBe(0);
      const pulled = await cplane(['state', 'pull', '--account', 'acc_1', '--state', url]);
      expect(pulled.code).toBe(0);
      expect(pulled.stdout).not.toContain(TOKEN);
      const contents = parseStateFile(pulled.stdout, 'pulled');
      expect(contents.resources['gateway_token.prod/ci']!.sealed!.plaintext!.alg).toBe('xchacha20poly1305');

      const same = join(box.root, 'same.json');
      writeFileSync(same, pulled.stdout);
      expect((await cplane(['state', 'push', same, '--account', 'acc_1', '--state', url])).stdout).toContain('already holds serial 1');

      // Edited by someone who holds the state key: the new entry carries its MAC.
      const api = authenticResource(env.CPLANE_STATE_KEY!, contents, 'project.api', resource('project', 'prj_2'));
      const edited = { ...contents, serial: contents.serial + 1, resources: { ...contents.resources, 'project.api': api } };
      const newer = join(box.root, 'newer.json');
      writeFileSync(newer, JSON.stringify(edited));
      const pushed = await cplane(['state', 'push', newer, '--account', 'acc_1', '--state', url]);
      expect(pushed).toMatchObject({ code: 0, stderr: '' });
      expect((await cplane(['state', 'list', '--account', 'acc_1', '--state', url])).stdout).toContain('project.api');

      const older = await cplane(['state', 'push', same, '--account', 'acc_1', '--state', url]);
      expect(older.code).toBe(1);
      expect(older.stderr).toContain('is at serial 2, and the one to write is at 1');
      const other = join(box.root, 'other.json');
      writeFileSync(other, JSON.stringify({ ...edited, serial: 9, lineage: '00000000-0000-4000-8000-000000000000' }));
      const lineage = await cplane(['state', 'push', other, '--account', 'acc_1', '--state', url]);
      expect(lineage.stderr).toContain('they are different histories; nothing was written.');
      for (const run of [pulled, pushed, older, lineage]) expect(run.stdout + run.stderr).not.toContain(password);
    },
  );

  it('history of a local file says it keeps none', async () => {
    const run = await cplane(['state', 'history', '--account', 'acc_1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is a local file, which keeps no history');
  });
});
