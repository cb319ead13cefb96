// The CLI killed with SIGKILL after its k-th API answer, for every k of a small configuration: the next run converges,
// with no duplicates and every token's plaintext kept.
import { afterEach, describe, expect, it } from 'vitest';
import { liveInventory, smallConfig, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('apply killed after the k-th request', () => {
  it('always converges on the next run', async () => {
    // How many answers a clean apply of this configuration takes.
    w = await world();
    w.config(smallConfig());
    const seeded = await liveInventory(w.client);
    const before = w.emulator.stats().requests;
    expect((await w.cli(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    const total = w.emulator.stats().requests - before;
    await w.close();
    w = undefined;

    let resent = 0;
    for (let k = 1; k <= total; k++) {
      w = await world();
      w.config(smallConfig());
      const killed = await w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_TEST_KILL_AFTER_REQUESTS: String(k) });
      expect(killed.signal, `k=${k}`).toBe('SIGKILL');
      // A killed run cannot release its lock: the next run names the stale lock, and the user clears it.
      const locked = await w.cli(['apply', w.dir, '--auto-approve']);
      const lockId = /force-unlock ([0-9a-f-]{36})/.exec(locked.stderr)?.[1];
      expect(locked.stderr, `k=${k}`).toContain('is stale');
      expect((await w.cli(['force-unlock', lockId!, w.dir])).code).toBe(0);
      const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
      expect(rerun.code, `k=${k}: ${rerun.stderr}`).toBe(0);
      if (rerun.stdout.includes('resent pending')) resent++;
      expect(await liveInventory(w.client), `k=${k}`).toEqual({
        projects: [...seeded.projects, 'shop'].sort(),
        credentials: [...seeded.credentials, 'openai-shop'].sort(),
        gateways: [...seeded.gateways, 'shop-main'].sort(),
        tokens: [...seeded.tokens, 'shop-main/ci'].sort(),
      });
      const revealed = await w.cli(['output', 'gateway_token.main/ci', w.dir, '--reveal']);
      expect(revealed.code, `k=${k}: ${revealed.stderr}`).toBe(0);
      const plaintext = revealed.stdout.trim();
      expect(plaintext.length).toBeGreaterThan(10);
      expect(killed.stdout + locked.stderr + rerun.stdout).not.toContain(plaintext);
      await w.close();
      w = undefined;
    }
    // Every one of the 4 writes was once killed between its commit and its record, and finished by a resend.
    expect(resent).toBe(4);
  });
});
