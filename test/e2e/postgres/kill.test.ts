// apply killed with SIGKILL in the middle, with the state in PostgreSQL: the server drops the dead run's session
// and with it the advisory lock, so the next apply proceeds at once, without force-unlock, and converges with
// no duplicates and the token's plaintext kept.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { liveInventory, smallConfig, world, type World } from '../helpers.js';

const database = withDatabase();
let w: World | undefined;
let total = 0;

function stateEnv(): NodeJS.ProcessEnv {
  const url = new URL(database().url);
  url.searchParams.set('schema', `kill_${randomBytes(4).toString('hex')}`);
  return { CPLANE_STATE: url.toString() };
}

afterEach(async () => {
  await w?.close();
  w = undefined;
});

beforeAll(async () => {
  // How many answers a clean apply of this configuration takes.
  const clean = await world();
  try {
    clean.config(smallConfig());
    const before = clean.emulator.stats().requests;
    // In-process (the CLI's entry, no subprocess): the same requests as a subprocess, counted; the killed runs below are real processes.
    expect((await clean.run(['apply', clean.dir, '--auto-approve'], stateEnv())).code).toBe(0);
    total = clean.emulator.stats().requests - before;
  } finally {
    await clean.close();
  }
}, 120_000);

describe('apply killed mid-run, state in PostgreSQL', () => {
  it.each([0.5, 0.9])(
    'after %s of its requests: the next apply proceeds without force-unlock and converges',
    { timeout: 180_000 },
    async (fraction) => {
      const k = Math.max(1, Math.floor(total * fraction));
      w = await world();
      w.config(smallConfig());
      const env = stateEnv();
      const seeded = await liveInventory(w.client);
      const killed = await w.cli(['apply', w.dir, '--auto-approve'], { ...env, CPLANE_TEST_KILL_AFTER_REQUESTS: String(k) });
      expect(killed.signal, `k=${k}`).toBe('SIGKILL');

      const rerun = await w.cli(['apply', w.dir, '--auto-approve'], env);
      expect(rerun.stderr, `k=${k}`).toBe('');
      expect(rerun.code, `k=${k}`).toBe(0);
      expect(await liveInventory(w.client), `k=${k}`).toEqual({
        projects: [...seeded.projects, 'shop'].sort(),
        credentials: [...seeded.credentials, 'openai-shop'].sort(),
        gateways: [...seeded.gateways, 'shop-main'].sort(),
        tokens: [...seeded.tokens, 'shop-main/ci'].sort(),
      });
      expect((await w.cli(['plan', w.dir], env)).stdout).toContain('No changes.');
      const revealed = await w.cli(['output', 'gateway_token.main/ci', w.dir, '--reveal'], env);
      expect(revealed.code, revealed.stderr).toBe(0);
      expect(revealed.stdout.trim().length).toBeGreaterThan(10);
    },
  );
});
