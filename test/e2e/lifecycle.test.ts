// The life of a configuration through the real CLI: apply from empty, nothing left to do, update, token replace, archive, destroy.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveInventory, smallConfig, world, type World } from './helpers.js';

// Each test arranges its own world: the configurations before the step under test are applied in-process (the
// CLI's entry, no subprocess); the step under test runs the real CLI.
let w: World;
let seeded: Awaited<ReturnType<typeof liveInventory>>;
beforeEach(async () => {
  w = await world();
  seeded = await liveInventory(w.client);
});
afterEach(async () => w.close());

/** A token's plaintext, read in-process (the value is the subject, not how `output` prints it). */
const reveal = async (address: string) => (await w.run(['output', address, w.dir, '--reveal'])).stdout.trim();

/** Applies each configuration in turn, in-process: the story so far. */
async function appliedInTurn(...configs: string[]): Promise<void> {
  for (const yaml of configs) {
    w.config(yaml);
    const run = await w.run(['apply', w.dir, '--auto-approve']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }
}
const first = () => smallConfig({ withProject2: true });
const updated = () => smallConfig({ withProject2: true, description: 'Shop services v2' });
const rescoped = () => smallConfig({ withProject2: true, description: 'Shop services v2', scopes: ['run', 'read_logs'] });
const archived = () => smallConfig({ description: 'Shop services v2', scopes: ['run', 'read_logs'] });

describe('cplane apply and destroy, end to end', () => {
  it('refuses to apply without approval when there is no terminal', async () => {
    w.config(smallConfig());
    const run = await w.cli(['apply', w.dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: cplane apply needs approval: run it in a terminal, or pass --auto-approve.\n');
  });

  it('applies from empty, one plain line per event, announcing the token without printing it', async () => {
    w.config(smallConfig({ withProject2: true }));
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('apply: project.shop: create started\n');
    expect(run.stdout).toMatch(/apply: project\.shop: created id=[0-9a-f-]{36} {2}\(\d+\.\ds\)\n/);
    expect(run.stdout).toContain('new token kept sealed in state: cplane output gateway_token.main/ci infra --reveal');
    expect(run.stdout).toMatch(/Apply complete: 5 done, 0 failed, 0 skipped/);
    const token = await reveal('gateway_token.main/ci');
    expect(token.length).toBeGreaterThan(10);
    expect(run.stdout).not.toContain(token);
    // Without --reveal: the id and the prefix the API answered with, never the plaintext.
    const shown = (await w.cli(['output', 'gateway_token.main/ci', w.dir])).stdout;
    expect(shown).toMatch(/^gateway_token\.main\/ci = \(sensitive: use --reveal\) {2}\[id [0-9a-f-]{36}, prefix gwt_\w+\]\n$/);
    expect(token.startsWith(shown.match(/prefix (\S+)\]/)![1]!)).toBe(true);
    expect(shown).not.toContain(token);
    expect(run.stdout + run.stderr).not.toContain('sk-e2e-openai-secret');
    const live = await liveInventory(w.client);
    expect(live.projects).toEqual([...seeded.projects, 'extra', 'shop'].sort());
    expect(live.tokens).toEqual([...seeded.tokens, 'shop-main/ci'].sort());
  });

  it('then plans no changes', async () => {
    await appliedInTurn(first());
    const run = await w.cli(['plan', w.dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No changes.');
  });

  it('updates in place', async () => {
    await appliedInTurn(first());
    w.config(updated());
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/apply: project\.shop: updated id=/);
    const project = (await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop');
    expect(project?.description).toBe('Shop services v2');
  });

  it('replaces a token whose scopes changed, with a new plaintext kept in state', async () => {
    await appliedInTurn(first(), updated());
    const before = await reveal('gateway_token.main/ci');
    w.config(rescoped());
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/apply: gateway_token\.main\/ci: replaced id=/);
    const after = await reveal('gateway_token.main/ci');
    expect(after).not.toBe(before);
    expect((await liveInventory(w.client)).tokens).toEqual([...seeded.tokens, 'shop-main/ci'].sort());
  });

  it('archives a project removed from the configuration', async () => {
    await appliedInTurn(first(), updated(), rescoped());
    w.config(archived());
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/apply: project\.extra: archived/);
    expect((await liveInventory(w.client)).projects).toEqual([...seeded.projects, 'shop'].sort());
  });

  it('destroy is blocked by preventDestroy, and removes everything once it is lifted', async () => {
    await appliedInTurn(first(), updated(), rescoped(), archived());
    w.config(smallConfig({ description: 'Shop services v2', scopes: ['run', 'read_logs'], preventDestroy: true }));
    const blocked = await w.cli(['destroy', w.dir, '--auto-approve']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/preventDestroy/);
    expect((await liveInventory(w.client)).projects).toContain('shop');

    w.config(archived());
    const run = await w.cli(['destroy', w.dir, '--auto-approve']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Destroy complete: 4 done, 0 failed, 0 skipped/);
    expect(await liveInventory(w.client)).toEqual(seeded);
    const list = await w.cli(['state', 'list', w.dir]);
    expect(list.stdout).not.toContain('project.shop');
  });
});
