// `cplane plan` as a user runs it: the real binary as a subprocess against the emulator.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { planSchemaProblems, readPlanFile } from '../../src/saved-plan/index.js';
import { eachTestHarness, fullConfig } from './harness.js';

describe('cplane plan', () => {
  const h = eachTestHarness({ config: fullConfig });

  it('prints the plan, and with --detailed-exitcode exits 2 while there are changes and 0 once there are none', async () => {
    const first = await h().cli(['plan', '--detailed-exitcode']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(2);
    expect(first.stdout).toContain('cplane will perform the following actions:');
    expect(first.stdout).toContain('  # gateway.prod will be created\n  +   gateway "prod"');
    expect(first.stdout).not.toContain('\u001b[');
    expect(first.stdout.trimEnd().split('\n').at(-1)).toBe('Plan: 6 to add, 0 to change, 0 to replace, 0 to remove.');

    await h().converge();
    const second = await h().cli(['plan', '--detailed-exitcode']);
    expect(second).toEqual({
      code: 0,
      stdout: `Account: ${fixtures.accounts[1]!.name} (${fixtures.accounts[1]!.id})   Workspace: default\n\nNo changes. Your infrastructure matches the configuration.\n`,
      stderr: '',
    });
  });

  it('saves a plan with --out that reads back valid and applies to convergence', async () => {
    const saved = await h().cli(['plan', '--out', 'plan.json']);
    expect(saved.code).toBe(0);
    expect(saved.stderr).toBe(
      `Saved the plan to ${join(h().dir, 'plan.json')}; apply exactly this plan with \`cplane apply plan.json\`.\n`,
    );
    const plan = await readPlanFile(join(h().dir, 'plan.json'));
    expect(plan.steps).toHaveLength(6);
    expect(plan.origin).toMatchObject({ configDir: '.', workspace: 'default', state: { path: `.cplane/${plan.account}/state.json` } });
    expect((await h().apply(plan)).failed).toEqual([]);
    expect((await h().plan()).steps).toEqual([]);
  });

  it('refuses a plan file that does not match the schema', async () => {
    writeFileSync(join(h().dir, 'bad.json'), JSON.stringify({ formatVersion: 3 }));
    await expect(readPlanFile(join(h().dir, 'bad.json'))).rejects.toThrow(
      `${join(h().dir, 'bad.json')} is not a valid plan file:\n  /: must have required property 'cplaneVersion'`,
    );
  });

  it('prints JSON that validates against schema/plan.schema.json, and Markdown for a pull request', async () => {
    // The formats are the subject, not the process: in-process.
    const json = await h().run(['plan', '--json']);
    expect(json.code).toBe(0);
    expect(await planSchemaProblems(JSON.parse(json.stdout))).toEqual([]);
    const markdown = await h().run(['plan', '--markdown']);
    expect(markdown.stdout).toContain('**Plan: 6 to add, 0 to change, 0 to replace, 0 to remove.**');
    expect(markdown.stdout).toContain('<details><summary>Changes by field</summary>');
  });

  it('names the variable to set when the connection is not configured', async () => {
    // Diagnostics, in-process: the message is the subject.
    const result = await h().run(['plan'], { CPLANE_BASE_URL: '' });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: No API address: CPLANE_BASE_URL is not set.\nSet CPLANE_BASE_URL (e.g. http://127.0.0.1:4010 for `cplane emulator`) or pass --base-url.\n',
    });
    const token = await h().run(['plan'], { CPLANE_TOKEN: '' });
    expect(token.stderr).toBe(
      'Error: No API token: CPLANE_TOKEN is not set.\nSet CPLANE_TOKEN to a personal access token (sk-svc-pat-...) or a Service Account token (sk-svc-sa-...).\n',
    );
  });

  it('takes the token from --token too, with a warning to prefer CPLANE_TOKEN', async () => {
    const result = await h().cli(['plan', '--token', fixtures.tokens.admin], { CPLANE_TOKEN: '' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('Warning: --token puts the token in the process list and shell history; prefer setting CPLANE_TOKEN.\n');
    expect(result.stdout).toContain('Plan: 6 to add');
  });

  it('refuses conflicting flags and a bad --parallelism', async () => {
    expect((await h().run(['plan', '--json', '--markdown'])).stderr).toBe(
      'Error: --json and --markdown cannot be used together.\nPick one output format.\n',
    );
    expect((await h().run(['plan', '--parallelism', '0'])).stderr).toBe(
      'Error: --parallelism must be a whole number from 1 to 256, not "0".\n',
    );
  });

  it('fails on a corrupt state instead of planning from nothing', async () => {
    await h().converge();
    writeFileSync(h().state.path, '{ not json');
    const result = await h().run(['plan']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error: .*state/i);
    expect(readFileSync(h().state.path, 'utf8')).toBe('{ not json');
  });
});
