// After a killed apply left a write pending, `plan` shows it ("will be resent first") and plans nothing of its own
// for that address; a plan saved then applies cleanly: the pending write first, then the saved steps.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answersOfCleanApply, liveInventory, smallConfig, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const total = await answersOfCleanApply();

describe('pending writes of a killed apply', () => {
  it('are shown by plan, and a plan saved with them applies cleanly, the pending writes first', { timeout: 180_000 }, async () => {
    w = await world();
    w.config(smallConfig());
    const seeded = await liveInventory(w.client);
    // Killed right after the last answer (the token's create) arrives, before it is recorded.
    const killed = await w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_TEST_KILL_AFTER_REQUESTS: String(total) });
    expect(killed.signal).toBe('SIGKILL');

    w.config(smallConfig({ description: 'Shop services, v2' }));
    const plan = await w.cli(['plan', w.dir, '--out', join(w.dir, '..', 'r.json')]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Pending writes an earlier apply left unconfirmed (they will be resent first, with their saved keys):');
    expect(plan.stdout).toMatch(/> gateway_token\.main\/ci: createGatewayToken will be resent first \(then created\)/);
    // The token is not planned as an ordinary create next to its pending write.
    expect(plan.stdout).not.toContain('gateway_token.main/ci will be created');
    expect(plan.stdout).toContain('project.shop will be updated in place');

    const apply = await w.cli(['apply', join(w.dir, '..', 'r.json')]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('resent pending createGatewayToken');
    // Listed before they are resent (and so before an interactive apply asks anything).
    expect(apply.stdout.indexOf('gateway_token.main/ci: createGatewayToken will be resent first')).toBeGreaterThanOrEqual(0);
    expect(apply.stdout.indexOf('will be resent first')).toBeLessThan(apply.stdout.indexOf('resent pending'));
    expect(apply.stdout).toMatch(/Apply complete: 1 done, 0 failed/);
    expect(apply.stdout + apply.stderr).not.toContain('Nothing was applied');
    expect(await liveInventory(w.client)).toEqual({
      projects: [...seeded.projects, 'shop'].sort(),
      credentials: [...seeded.credentials, 'openai-shop'].sort(),
      gateways: [...seeded.gateways, 'shop-main'].sort(),
      tokens: [...seeded.tokens, 'shop-main/ci'].sort(),
    });
    expect((await w.run(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
  });

  it(
    "a plan saved while the gateway's create is pending creates its token under the gateway the resend finishes",
    { timeout: 180_000 },
    async () => {
      w = await world();
      w.config(smallConfig());
      const seeded = await liveInventory(w.client);
      // Killed right after the gateway's create answers: the token's create has not been planned for it yet.
      const killed = await w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_TEST_KILL_AFTER_REQUESTS: String(total - 1) });
      expect(killed.signal).toBe('SIGKILL');

      const plan = await w.cli(['plan', w.dir, '--out', join(w.dir, '..', 'r.json')]);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toMatch(/> gateway\.main: createGateway will be resent first \(then created\)/);
      expect(plan.stdout).toContain('gateway_token.main/ci will be created');

      const apply = await w.cli(['apply', join(w.dir, '..', 'r.json')]);
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      expect(apply.stdout).toContain('resent pending createGateway');
      expect(apply.stdout).toMatch(/Apply complete: 1 done, 0 failed/);
      expect((await liveInventory(w.client)).tokens).toEqual([...seeded.tokens, 'shop-main/ci'].sort());
      expect((await liveInventory(w.client)).gateways).toEqual([...seeded.gateways, 'shop-main'].sort());
    },
  );
});
