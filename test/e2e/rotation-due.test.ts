// A `generate`d record value with `rotationIntervalDays` is rotated by apply once its live due date has passed:
// a new value through POST /records/{id}/rotate, and `secretDueAt` moved an interval ahead. Until then, nothing.
// A new one gets its first due date; one without a due date rotates an interval after its last value write
// (the emulator's clock moved, never slept), as maintenance that drift lists and reconcile applies.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

const DAY = 86_400_000;
let w: World;
let recordId: string;
const fingerprint = () =>
  (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { fingerprints: Record<string, string> }> }).resources[
    'record.shop/signing'
  ]!.fingerprints.value;
// cplane reads the API's clock from the HTTP Date header, whole seconds: a due date exactly three days before
// this process's clock could be under three days before the API's, so it is set an hour further back.
const HOUR = 3_600_000;
const startOfToday = () => Math.floor(Date.now() / DAY) * DAY;

// Each test arranges its own world, the record applied in-process (the CLI's entry, no subprocess); the step
// under test runs the real CLI.
beforeEach(async () => {
  w = await world();
  w.config(
    smallConfig().replace(
      '    lifecycle: { preventDestroy: false }\n',
      '    lifecycle: { preventDestroy: false }\n    records:\n      signing:\n        rotationIntervalDays: 30\n        value: { generate: { length: 32 } }\n',
    ),
  );
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  recordId = (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { id: string }> }).resources[
    'record.shop/signing'
  ]!.id;
});
afterEach(async () => w.close());

/** The record's due date moved `ms` from now, through `cplane api updateRecord` in-process: for arranging. */
const dueIn = (ms: number) =>
  w.run([
    'api',
    'updateRecord',
    '--param',
    `id=${recordId}`,
    '--body',
    JSON.stringify({ secretDueAt: new Date(Date.now() + ms).toISOString() }),
  ]);

describe('a generated record value that is due', () => {
  it('is left alone while its due date is ahead', async () => {
    const moved = await w.run([
      'api',
      'updateRecord',
      '--param',
      `id=${recordId}`,
      '--body',
      JSON.stringify({ secretDueAt: new Date(Date.now() + 3 * DAY).toISOString() }),
    ]);
    expect(moved.code).toBe(0);
    // The configuration does not manage secretDueAt: the live value is not drift.
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('is planned for rotation once `cplane api updateRecord` moves its due date into the past', async () => {
    const moved = await w.cli([
      'api',
      'updateRecord',
      '--param',
      `id=${recordId}`,
      '--body',
      JSON.stringify({ secretDueAt: new Date(Date.now() - 3 * DAY - HOUR).toISOString() }),
    ]);
    expect(moved.code).toBe(0);
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('# record.shop/signing will have its secret rotated');
    expect(plan.stdout).toContain('~ value = (sensitive)  (rotate: due 3 days ago)');
    const next = new Date(startOfToday() + 30 * DAY).toISOString();
    expect(plan.stdout).toMatch(new RegExp(`~ secretDueAt = "[0-9T:.-]+Z" -> "${next.replace(/\./g, '\\.')}"`));
  });

  it('is rotated by apply: a new value version, and the due date an interval ahead', async () => {
    expect((await dueIn(-3 * DAY - HOUR)).code).toBe(0);
    const before = fingerprint();
    w.emulator.resetStats();
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(w.emulator.stats().byOperation.rotateRecord).toBe(1);
    expect(fingerprint()).not.toBe(before);
    const live = await w.client.call('getRecord', { path: { id: recordId } });
    expect(live.secret_due_at).toBe(new Date(startOfToday() + 30 * DAY).toISOString());

    const again = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });
});

describe('a generated record value with an interval and no due date', () => {
  const apiDay = (days: number) => new Date(Math.floor(w.emulator.now().getTime() / DAY) * DAY + days * DAY).toISOString();

  it('gets its first due date when it is created, and the plan shows it', async () => {
    w.config(
      smallConfig().replace(
        '    lifecycle: { preventDestroy: false }\n',
        '    lifecycle: { preventDestroy: false }\n    records:\n      signing:\n        rotationIntervalDays: 30\n        value: { generate: { length: 32 } }\n      webhook:\n        rotationIntervalDays: 7\n        value: { generate: { length: 32 } }\n',
      ),
    );
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`record.shop/webhook: rotated every 7 days; first due ${apiDay(7).slice(0, 10)} UTC`);
    expect((await w.cli(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    const webhook = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'webhook')!;
    expect(webhook.secret_due_at).toBe(apiDay(7));
  });

  it('rotates an interval after its last value write: drift lists it due, and reconcile applies it as maintenance', async () => {
    // A record without a due date (made before cplane set one, or cleared on the dashboard).
    expect((await w.run(['api', 'updateRecord', '--param', `id=${recordId}`, '--body', JSON.stringify({ secretDueAt: null })])).code).toBe(
      0,
    );
    w.emulator.moveClock('29d');
    const early = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(early.stdout).toContain('No changes.');
    // An hour more: cplane reads the API's clock from the Date header, in whole seconds.
    w.emulator.moveClock('2d1h');
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('# record.shop/signing will have its secret rotated');
    expect(plan.stdout).toContain('~ value = (sensitive)  (rotate: due 1 day ago)');
    expect(plan.stdout).toContain(`~ secretDueAt = null -> "${apiDay(30)}"  (no due date: every 30 days from the last value write)`);
    const drift = await w.cli(['drift', w.dir]);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('  ! record.shop/signing rotation due');
    const before = fingerprint();
    const reconciled = await w.cli(['reconcile', w.dir]);
    expect(reconciled.stderr).toBe('');
    expect(reconciled.code).toBe(0);
    expect(reconciled.stdout).toMatch(/\[maintenance\] ~ record\.shop\/signing will have its secret rotated/);
    expect(fingerprint()).not.toBe(before);
    expect((await w.client.call('getRecord', { path: { id: recordId } })).secret_due_at).toBe(apiDay(30));
  });
});
