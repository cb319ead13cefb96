// Commands that only read a PostgreSQL state never change the database: on a schema where cplane never wrote
// (here `public`), `state list`, `state show`, `output`, `state history`, `state pull` and `plan` create no table,
// and the ones that need a state say the schema holds no cplane tables. (`plan`: test/e2e/postgres/saved-plan-state.test.ts.)
// The commands run in-process: what they do to the database is the subject, not the process.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { runInProcess } from '../../helpers/in-process-cli.js';
import { makeSandbox, newKey } from '../helpers.js';
import type { Sandbox } from '../helpers.js';
import { withClient } from './helpers.js';

const database = withDatabase();

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let url: string;

beforeEach(() => {
  box = makeSandbox();
  mkdirSync(box.configDir, { recursive: true });
  writeFileSync(join(box.configDir, 'main.yaml'), 'version: 1\nprojects:\n  web: {}\n');
  env = { ...box.env, CPLANE_STATE_KEY: newKey() };
  const parsed = new URL(database().url);
  parsed.searchParams.set('schema', 'public');
  url = parsed.toString();
});
afterEach(() => box.cleanup());

const tablesInPublic = () =>
  withClient(url, async (client) =>
    (
      await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`)
    ).rows.map((r) => r.name),
  );

describe('read-only commands on a PostgreSQL state', () => {
  it('run no DDL, and say that the schema holds no cplane tables', { timeout: 120_000 }, async () => {
    for (const args of [['state', 'list'], ['state', 'show', 'project.web'], ['output'], ['state', 'history'], ['state', 'pull']]) {
      const run = await runInProcess([...args, '--account', 'acc_1', '--state', url], env, box.configDir);
      if (args[1] !== 'history') {
        expect(run.code, args.join(' ')).not.toBe(0);
        expect(run.stderr, args.join(' ')).toContain('the schema public holds no cplane tables: nothing was ever written there');
      }
      expect(await tablesInPublic(), args.join(' ')).toEqual([]);
    }
  });
});
