// `cplane apply --target`: only the named address and what it depends on are written; the rest waits for a later run.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveInventory, smallConfig, world, type World } from './helpers.js';

// Each test arranges its own world; an apply before the step under test runs in-process.
let w: World;
let seeded: Awaited<ReturnType<typeof liveInventory>>;
beforeEach(async () => {
  w = await world();
  seeded = await liveInventory(w.client);
  w.config(smallConfig({ withProject2: true }));
});
afterEach(async () => w.close());

describe('cplane apply --target', () => {
  it('creates the target and its dependencies only', async () => {
    const run = await w.cli(['apply', w.dir, '--auto-approve', '--target', 'gateway.main']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Apply complete: 3 done, 0 failed, 0 skipped/);
    const live = await liveInventory(w.client);
    expect(live.projects).toEqual([...seeded.projects, 'shop'].sort());
    expect(live.credentials).toEqual([...seeded.credentials, 'openai-shop'].sort());
    expect(live.gateways).toEqual([...seeded.gateways, 'shop-main'].sort());
    expect(live.tokens).toEqual(seeded.tokens);
  });

  it('leaves the rest for the next full run', async () => {
    const targeted = await w.run(['apply', w.dir, '--auto-approve', '--target', 'gateway.main']);
    expect(targeted.code, targeted.stderr).toBe(0);
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stdout).toContain('Plan: 2 to add, 0 to change, 0 to replace, 0 to remove.');
    expect(plan.stdout).toContain('# project.extra will be created');
    expect(plan.stdout).toContain('# gateway_token.main/ci will be created');
  });

  it('refuses an address that is not in the configuration, naming it', async () => {
    const run = await w.cli(['apply', w.dir, '--auto-approve', '--target', 'gateway.nope']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('gateway.nope');
  });
});
