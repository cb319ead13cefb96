// `--exclude ADDRESS` (OpenTofu's meaning): everything but the excluded address and what depends on it. Shown on
// plan, apply (where a module call is excluded by its prefix, and a saved plan carries the exclusion) and destroy
// (where what the excluded address needs stays), with the warning the plan prints and the --target conflict.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { world, type World } from './helpers.js';
import { callerConfig, writeModule } from './team-module.js';

// Each test arranges its own world: what was applied before the step under test is applied in-process (the CLI's
// entry, no subprocess); the step under test runs the real CLI.
let w: World;
beforeEach(async () => {
  w = await world();
  writeModule(w.dir);
  w.config(
    `${callerConfig}  side: { source: ./modules/team, inputs: { team: side, project: extra, credential: openai } }
gateways:
  direct:
    project: core
    slug: gw-direct
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci: { scopes: [run] }
`.replace('projects:\n', 'projects:\n  extra: { description: Extra }\n'),
  );
});
afterEach(async () => w.close());

/** Applies in-process, with `args` after the folder: the story so far. */
async function appliedInProcess(...args: string[]): Promise<void> {
  const run = await w.run(['apply', w.dir, '--auto-approve', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
}

const stateAddresses = () =>
  Object.keys((JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, unknown> }).resources).sort();

describe('--exclude', () => {
  it('plans all but the excluded address and what depends on it, and says so', async () => {
    const plan = await w.cli(['plan', w.dir, '--exclude', 'project.extra']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    // module.side's gateway is in project.extra: it and its token are left out with it.
    expect(plan.stdout).not.toContain('# project.extra');
    expect(plan.stdout).not.toContain('# module.side.');
    expect(plan.stdout).toContain('# module.payments.gateway.main will be created');
    expect(plan.stdout).toContain('# gateway_token.direct/ci will be created');
    expect(plan.stdout).toContain('Plan: 8 to add, 0 to change, 0 to replace, 0 to remove.');
    expect(plan.stdout).toContain(
      'Only part of the configuration was planned (--exclude project.extra): the excluded addresses and what depends on them were left out.',
    );
  });

  it('refuses --target with --exclude', async () => {
    for (const command of [['plan'], ['apply', '--auto-approve'], ['destroy', '--auto-approve']]) {
      const run = await w.cli([...command, w.dir, '--target', 'gateway.direct', '--exclude', 'project.extra']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--target and --exclude cannot be used together.');
    }
  });

  it('names an address that is nowhere', async () => {
    const run = await w.cli(['plan', w.dir, '--exclude', 'module.nope']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--exclude module.nope: no such address in the configuration or state');
  });

  it('applies a saved plan that excludes a module call, with its exclusion', async () => {
    const planFile = join(w.dir, '..', 'excluding.plan.json');
    const plan = await w.cli(['plan', w.dir, '--exclude', 'module.search', '--exclude', 'module.side', '--out', planFile]);
    expect(plan.code).toBe(0);
    expect((JSON.parse(readFileSync(planFile, 'utf8')) as { exclude: string[] }).exclude).toEqual(['module.search', 'module.side']);
    const refused = await w.cli(['apply', planFile, '--exclude', 'module.side']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--exclude cannot be used with a saved plan');
    const run = await w.cli(['apply', planFile]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(stateAddresses()).toEqual([
      'credential.openai',
      'gateway.direct',
      'gateway_token.direct/ci',
      'module.payments.gateway.main',
      'module.payments.gateway_token.main/ci',
      'project.core',
      'project.extra',
    ]);
  });

  it('applies the rest when nothing is excluded', async () => {
    await appliedInProcess('--exclude', 'module.search', '--exclude', 'module.side');
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.code).toBe(0);
    expect(stateAddresses()).toHaveLength(11);
  });

  it('destroys all but the excluded token and what it needs', async () => {
    await appliedInProcess();
    const run = await w.cli(['destroy', w.dir, '--auto-approve', '--exclude', 'module.payments.gateway_token.main/ci']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // The token stays, so do its gateway (deleting it would revoke the token), the gateway's project and credential.
    expect(stateAddresses()).toEqual([
      'credential.openai',
      'module.payments.gateway.main',
      'module.payments.gateway_token.main/ci',
      'project.core',
    ]);
  });
});
