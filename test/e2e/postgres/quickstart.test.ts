// The quickstart through the real CLI with its state in PostgreSQL: apply against the emulator, then a second
// plan finds nothing to do, the token is revealed from the database copy, and nothing printed shows the password.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { world, type World } from '../helpers.js';

const root = join(import.meta.dirname, '..', '..', '..');
const quickstart = join(root, 'examples', 'quickstart');
const database = withDatabase();

function demoEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const line of readFileSync(join(quickstart, 'demo.env'), 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

let w: World;
let stateEnv: NodeJS.ProcessEnv;
beforeAll(async () => {
  w = await world();
  const url = new URL(database().url);
  url.searchParams.set('schema', 'quickstart');
  stateEnv = { ...demoEnv(), CPLANE_STATE: url.toString() };
});
afterAll(async () => w?.close());

describe('the quickstart with its state in PostgreSQL', () => {
  it('applies, then plans "No changes." from the shared state', { timeout: 180_000 }, async () => {
    const password = new URL(stateEnv.CPLANE_STATE!).password;
    const apply = await w.cli(['apply', quickstart, '--auto-approve'], stateEnv);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/Apply complete: \d+ done, 0 failed, 0 skipped/);

    const plan = await w.cli(['plan', quickstart], stateEnv);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');

    const token = await w.cli(['output', 'gateway_token.prod/ci', '--reveal', quickstart], stateEnv);
    expect(token.code).toBe(0);
    expect(token.stdout.trim().length).toBeGreaterThan(10);

    const history = await w.cli(['state', 'history', quickstart], stateEnv);
    expect(history.stdout).toMatch(/^ +[1-9]\d* .*`cplane apply`/m);
    for (const run of [apply, plan, token, history]) expect(run.stdout + run.stderr).not.toContain(password);
  });
});
