// A module used twice: one folder with its own variables, called for two teams with different inputs. Both
// gateways (and their tokens) are created under `module.NAME.` addresses, and planning again changes nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { world, type World } from './helpers.js';
import { callerConfig, teamModule, writeModule } from './team-module.js';

// Each test arranges its own world: an apply before the step under test runs in-process (the CLI's entry, no
// subprocess); the step under test runs the real CLI.
let w: World;
beforeEach(async () => {
  w = await world();
  writeModule(w.dir);
  w.config(callerConfig);
});
afterEach(async () => w.close());

/** Both calls applied, in-process: the story so far. */
async function appliedInProcess(): Promise<void> {
  const run = await w.run(['apply', w.dir, '--auto-approve']);
  expect(run.code, run.stderr).toBe(0);
}

describe('a module used twice', () => {
  it('plans both calls under module addresses', async () => {
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    for (const address of [
      'module.payments.gateway.main',
      'module.search.gateway.main',
      'module.payments.gateway_token.main/ci',
      'module.search.gateway_token.main/ci',
    ]) {
      expect(plan.stdout).toContain(`# ${address} will be created`);
    }
    expect(plan.stdout).toContain('Plan: 6 to add, 0 to change, 0 to replace, 0 to remove.');
  });

  it('applies both with their own inputs', async () => {
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const gateways = (await w.client.listAll('listGateways', {})).filter((g) => g.slug.startsWith('gw-'));
    expect(gateways.map((g) => [g.slug, g.name, g.settings.requestsPerMinute]).sort()).toEqual([
      ['gw-payments', 'payments gateway', 600],
      ['gw-search', 'search gateway', 100],
    ]);
    const state = JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, unknown> };
    expect(
      Object.keys(state.resources)
        .filter((a) => a.startsWith('module.'))
        .sort(),
    ).toEqual([
      'module.payments.gateway.main',
      'module.payments.gateway_token.main/ci',
      'module.search.gateway.main',
      'module.search.gateway_token.main/ci',
    ]);
  });

  it('reveals the token of a module by its address', async () => {
    await appliedInProcess();
    const run = await w.cli(['output', 'module.search.gateway_token.main/ci', w.dir, '--reveal']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().length).toBeGreaterThan(10);
  });

  it('has nothing left to do', async () => {
    await appliedInProcess();
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('a saved plan after a module file changed: applies only its own steps, naming the file and what it leaves out', async () => {
    await appliedInProcess();
    const planFile = join(w.dir, '..', 'modules.plan.json');
    writeModule(
      w.dir,
      teamModule.replace('rpm: { type: integer, default: 60 }', 'rpm: { type: integer, default: 60, description: Requests per minute }'),
    );
    expect((await w.run(['plan', w.dir, '--out', planFile])).code).toBe(0);
    writeModule(w.dir, teamModule.replace('scopes: [run]', 'scopes: [run, read_logs]'));
    const run = await w.cli(['apply', planFile]);
    // A saved plan is stale only where it is wrong (docs/applying.md): the module's change is not in it, so not applied.
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The configuration changed since the plan was made (modules/team/team.yaml (changed))');
    expect(run.stdout).toContain(
      'Not in this plan, so not applied (left for a plan of its own): module.payments.gateway_token.main/ci (replace), module.search.gateway_token.main/ci (replace).',
    );
  });

  it('targets one call by its prefix', async () => {
    await appliedInProcess();
    writeModule(w.dir, teamModule.replace('ci: { scopes: [run] }', 'ci: { scopes: [run] }\n      ops: { scopes: [run] }'));
    const plan = await w.cli(['plan', w.dir, '--target', 'module.search']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('# module.search.gateway_token.main/ops will be created');
    expect(plan.stdout).not.toContain('module.payments.gateway_token.main/ops');
  });
});
