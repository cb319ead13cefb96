// Saved plans: applied as reviewed, refused when stale, and applying the same file twice writes once.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveInventory, smallConfig, world, type World } from './helpers.js';

// Each test arranges its own world; the later ones start from smallConfig() applied in-process.
let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => w.close());

async function smallConfigApplied(): Promise<void> {
  w.config(smallConfig());
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
}

describe('cplane apply PLANFILE', () => {
  it('applies a saved plan without a prompt; the same file again finds nothing to do and writes nothing', async () => {
    w.config(smallConfig());
    const planFile = join(w.dir, '..', 'first.plan.json');
    expect((await w.run(['plan', w.dir, '--out', planFile])).code).toBe(0);
    expect(existsSync(join(w.dir, '.cplane', '.gitignore'))).toBe(false);
    const first = await w.cli(['apply', planFile]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Apply complete: 4 done/);
    // The state it wrote is never offered to `git add` (the merge-apply flow applies only saved plans).
    expect(readFileSync(join(w.dir, '.cplane', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const after = await liveInventory(w.client);

    const second = await w.cli(['apply', planFile]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('No changes.');
    expect(second.stdout).not.toContain('started');
    expect(await liveInventory(w.client)).toEqual(after);
  });

  it('refuses a plan whose configuration now wants something else at its addresses, naming the address and the file', async () => {
    await smallConfigApplied();
    w.config(smallConfig({ description: 'planned' }));
    const planFile = join(w.dir, '..', 'config.plan.json');
    expect((await w.run(['plan', w.dir, '--out', planFile])).code).toBe(0);
    w.config(smallConfig({ description: 'edited after planning' }));
    const run = await w.cli(['apply', planFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: The saved plan ${planFile} is stale or was altered at 1 address: a plan made now from the configuration and the live objects has other steps there (changed since the plan was made, by another apply or outside cplane, or the configuration now wants something else; changed files: main.yaml (changed)). Nothing was applied:\n  - project.shop: differs at changes[0].after`,
    );
    expect(run.stderr).toContain('Make a new plan with `cplane plan --out FILE`');
    const project = (await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop');
    expect(project?.description).toBe('Shop services');
  });

  it('applies a plan whose other addresses changed outside cplane since it was made, and leaves them for a plan of their own', async () => {
    await smallConfigApplied();
    w.config(smallConfig({ description: 'planned again' }));
    const planFile = join(w.dir, '..', 'live.plan.json');
    expect((await w.run(['plan', w.dir, '--out', planFile])).code).toBe(0);
    const credential = (await w.client.listAll('listCredentials', {})).find((c) => c.label === 'openai-shop')!;
    await w.client.call('updateCredential', { path: { id: credential.credential_id }, body: { baseUrl: 'https://api.openai.com/v1' } });
    w.emulator.resetStats();
    const run = await w.cli(['apply', planFile]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Not in this plan, so not applied (left for a plan of its own): credential.openai (update).');
    expect(w.emulator.stats().writes).toBe(1);
    const live = await w.client.listAll('listCredentials', {});
    expect(live.find((c) => c.label === 'openai-shop')).toMatchObject({ base_url: 'https://api.openai.com/v1' });
    expect((await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop')?.description).toBe('planned again');
  });

  it('refuses a plan whose own address changed outside cplane since it was made, writing nothing', async () => {
    await smallConfigApplied();
    w.config(smallConfig({ description: 'planned again' }));
    const planFile = join(w.dir, '..', 'own.plan.json');
    expect((await w.run(['plan', w.dir, '--out', planFile])).code).toBe(0);
    const project = (await w.client.listAll('listProjects', {})).find((p) => p.name === 'shop')!;
    await w.client.call('updateProject', {
      path: { id: project.project_id },
      body: { name: 'shop', description: 'edited by hand', isActive: true },
    });
    w.emulator.resetStats();
    const run = await w.cli(['apply', planFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is stale or was altered at 1 address');
    expect(run.stderr).toContain('  - project.shop: differs at changes[0].before');
    expect(w.emulator.stats().writes).toBe(0);
  });
});
