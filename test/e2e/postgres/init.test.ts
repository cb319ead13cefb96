// `cplane init` with a PostgreSQL state: the first run finds the database and makes cplane's tables, the second
// finds them current; the password never appears in what it prints.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { runCli } from '../helpers.js';

const database = withDatabase();
const home = mkdtempSync(join(tmpdir(), 'cplane-init-pg-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

it('creates the tables on the first run and finds them current on the second, never printing the password', async () => {
  mkdirSync(join(home, 'infra'));
  writeFileSync(join(home, 'infra', 'main.yaml'), 'version: 1\nprojects:\n  core: { description: Core }\n');
  const url = new URL(database().url);
  url.searchParams.set('schema', 'init_check');
  const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), NO_COLOR: '1', CPLANE_STATE: url.toString() };
  const first = await runCli(['init', 'infra', '--account', 'acct-1', '--json'], env, home);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  const state = (JSON.parse(first.stdout) as { state: { backend: string; exists: boolean; status: string } }).state;
  expect(state).toMatchObject({ backend: 'postgres', exists: false });
  expect(state.status).toMatch(/^reachable; cplane's tables in schema init_check created \(version \d+\)$/);

  const second = await runCli(['init', 'infra', '--account', 'acct-1'], env, home);
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(
    /^State: {7}postgres:\/\/.*: reachable; cplane's tables in schema init_check are current \(version \d+\)$/m,
  );
  if (url.password) for (const run of [first, second]) expect(`${run.stdout}${run.stderr}`).not.toContain(url.password);
});
