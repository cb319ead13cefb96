// Issue 19 E14: export never copies a record's value, so an exported folder applied to another account
// creates empty records. Export, apply and plan each say how many records have no value and how to give
// them one; the plan never reads a clean "No changes" while they are empty, until each gets a `value:`.
// The arranging apply runs the built binary; the rest runs the CLI's entry in-process (World.run): the output is the subject.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/index.js';
import type { Plan } from '../../src/plan-model/index.js';
import { world, type World } from '../e2e/helpers.js';

const source = fixtures.accounts[1]!.id;
const target = fixtures.accounts[0]!.id;
const values = { STRIPE_KEY: 'sk-live-stripe-0001', WEBHOOK_SECRET: 'whsec-0001-0001-0001' };
const heading =
  'Records without a value: applying gives them none. Give each a `value:` in the configuration (`{ env: NAME }` or `{ file: PATH }`) and apply; values are never exported or copied from another account:';

describe('records exported without their value', () => {
  let w: World;
  const inTarget = ['copy', '--account', target, '--var', `account=${target}`];
  beforeAll(async () => {
    w = await world();
    // Account `source`, built with cplane: two records, each with a value.
    w.config(`version: 1
projects:
  vault:
    name: vault
    description: Secrets
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
      webhook:
        value: { env: WEBHOOK_SECRET }
`);
    const built = await w.cli(['apply', w.dir, '--auto-approve', '--no-input'], values);
    expect(built.code).toBe(0);
    const vault = (await w.client.listAll('listProjects', { query: { accountId: source } })).find((p) => p.name === 'vault')!;
    const records = (await w.client.listAll('listRecords', { query: { accountId: source } })).filter(
      (r) => r.project_id === vault.project_id,
    );
    expect(
      records
        .filter((r) => r.current_version !== null)
        .map((r) => r.name)
        .sort(),
    ).toEqual(['stripe-key', 'webhook']);
  }, 60_000);
  afterAll(async () => {
    await w?.close();
  });

  it('export says the records are written without their value, and what that means', async () => {
    const exported = await w.run(['export', '--account', source, '--project', 'vault', '--out', 'copy']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(
      'Record values are never exported: 2 records are written without one. Applied to another account, they are created empty: ' +
        'give each a `value:` in its project file first (`cplane plan` lists the records without a value).',
    );
  });

  it('apply into another account lists the records it leaves empty, before and after the run', async () => {
    const applied = await w.run(['apply', ...inTarget, '--auto-approve', '--no-input']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const note = `${heading}\n  ! record.vault/stripe-key: no value\n  ! record.vault/webhook: no value`;
    expect(applied.stdout).toContain(`${note}\n`);
    // Said again after the run, where the output ends.
    expect(applied.stdout.trimEnd().endsWith(note)).toBe(true);
    const json = await w.run(['apply', ...inTarget, '--auto-approve', '--json']);
    expect(JSON.parse(json.stdout.split('\n')[0]!)).toMatchObject({
      type: 'plan',
      changes: false,
      notices: [
        { code: 'without_value', severity: 'warning', address: 'record.vault/stripe-key' },
        { code: 'without_value', severity: 'warning', address: 'record.vault/webhook' },
      ],
    });
  });

  it('plan there says so instead of a clean "No changes", in text, JSON and Markdown; the exit code stays 0', async () => {
    const text = await w.run(['plan', ...inTarget, '--detailed-exitcode']);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain('No changes. Your infrastructure matches the configuration.');
    expect(text.stdout).toContain('  ! record.vault/stripe-key: no value\n  ! record.vault/webhook: no value\n');
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('No changes. The plan has 2 warnings (listed above).');
    const plan = JSON.parse((await w.run(['plan', ...inTarget, '--json'])).stdout) as Plan;
    expect(plan.steps).toEqual([]);
    expect(plan.notices.filter((n) => n.code === 'without_value').map((n) => n.address)).toEqual([
      'record.vault/stripe-key',
      'record.vault/webhook',
    ]);
    const markdown = (await w.run(['plan', ...inTarget, '--markdown'])).stdout;
    expect(markdown).toContain('> - record.vault/stripe-key: no value\n> - record.vault/webhook: no value');
  });

  it('once each record is given a value and applied, the plan is clean again', async () => {
    const file = join(w.dir, '..', 'copy', 'project-vault.yaml');
    const yaml = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      yaml
        .replace(/( +)stripe-key:\n/, '$1stripe-key:\n$1  value: { env: STRIPE_KEY }\n')
        .replace(/( +)webhook:\n/, '$1webhook:\n$1  value: { env: WEBHOOK_SECRET }\n'),
    );
    const one = JSON.parse((await w.run(['plan', ...inTarget, '--json'], values)).stdout) as Plan;
    expect(one.notices.filter((n) => n.code === 'without_value')).toEqual([]);
    expect(one.summary.change).toBe(2);
    expect((await w.run(['apply', ...inTarget, '--auto-approve', '--no-input'], values)).code).toBe(0);
    const clean = await w.run(['plan', ...inTarget], values);
    expect(clean.stdout).toContain('No changes. Your infrastructure matches the configuration.');
  });
});
