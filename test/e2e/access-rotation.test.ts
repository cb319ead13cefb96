// A generated record's new values reach its readers (issues 21 and 22, through the real CLI and the emulator):
// `--replace` generates a new value and wraps it for the Service Account in the same apply; so does rotation when
// the live due date has passed; `rotateOnRevoke` rotates the value in the apply that removes a reader, who then
// cannot read; `destroy` revokes the grants before it archives the record.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { directoryYaml, privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const dana = fixtures.users[2]!;

let w: World;
let recordId: string;
let seen: string[];

const config = (users: string, rotateOnRevoke = false) =>
  w.config(`version: 1
projects:
  shop:
    name: shop-rotation
    records:
      api-key:
        value: { generate: { length: 40 } }
        rotationIntervalDays: 30
        rotateOnRevoke: ${rotateOnRevoke}
        grants:
          serviceAccounts: [ci-deployer]
          users: ${users}
${directoryYaml({ users: { dana: dana.id } })}`);

/** The value as ci-deployer reads it; it must be the value cplane itself reads, and a new one each time it is asked after a rotation. */
async function readAsServiceAccount(): Promise<string> {
  const run = await w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId], {
    CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
  });
  expect(run.stderr).toBe('');
  const own = await w.cli(['read', 'record.shop/api-key', w.dir]);
  expect(run.stdout).toBe(own.stdout);
  return run.stdout;
}

async function expectNewValue(): Promise<void> {
  const value = await readAsServiceAccount();
  expect(value).toMatch(/^.{40}\n$/);
  expect(seen).not.toContain(value);
  seen.push(value);
}

// Each test arranges its own world: the record applied, then the rotations before the one under test, in-process
// (the CLI's entry, no subprocess), each value cplane reads kept in `seen`; the step under test runs the real CLI.
beforeEach(async () => {
  w = await world({ account: acme });
  seen = [];
  config('[dana]');
  const apply = await w.run(['apply', w.dir, '--auto-approve']);
  expect(apply.stderr).toBe('');
  recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'api-key')!.record_id;
});
afterEach(async () => w.close());

/** Runs `args` in-process, then keeps the value cplane reads. */
async function rotatedInProcess(...runs: string[][]): Promise<void> {
  for (const args of runs) expect((await w.run(args)).code).toBe(0);
  seen.push((await w.run(['read', 'record.shop/api-key', w.dir])).stdout);
}
const steps = {
  applied: () => rotatedInProcess(),
  replaced: () => rotatedInProcess(['apply', w.dir, '--auto-approve', '--replace', 'record.shop/api-key']),
  rotatedWhenDue: () =>
    rotatedInProcess(
      ['api', 'updateRecord', '--param', `id=${recordId}`, '--body', JSON.stringify({ secretDueAt: '2020-01-01T00:00:00Z' })],
      ['apply', w.dir, '--auto-approve'],
    ),
  async danaRemoved() {
    config('[]', true);
    await rotatedInProcess(['apply', w.dir, '--auto-approve']);
  },
};
async function story(...names: (keyof typeof steps)[]): Promise<void> {
  for (const name of names) await steps[name]();
}

it('--replace generates a new value, wrapped for both readers in the same apply', async () => {
  // The first value, as ci-deployer reads it.
  await expectNewValue();
  const plan = await w.cli(['plan', w.dir, '--replace', 'record.shop/api-key']);
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(re-wrapped for 2 readers\)/);
  expect((await w.cli(['apply', w.dir, '--auto-approve', '--replace', 'record.shop/api-key'])).code).toBe(0);
  await expectNewValue();
});

it('rotation when due: the reader decrypts the new value', async () => {
  await story('applied', 'replaced');
  const moved = await w.run([
    'api',
    'updateRecord',
    '--param',
    `id=${recordId}`,
    '--body',
    JSON.stringify({ secretDueAt: '2020-01-01T00:00:00Z' }),
  ]);
  expect(moved.code).toBe(0);
  const plan = await w.cli(['plan', w.dir]);
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(rotate: due \d+ days ago; re-wrapped for 2 readers\)/);
  expect((await w.cli(['apply', w.dir, '--auto-approve'])).code).toBe(0);
  await expectNewValue();
});

it('rotateOnRevoke: removing a reader rotates the value in the same apply; the reader removed cannot read it', async () => {
  await story('applied', 'replaced', 'rotatedWhenDue');
  config('[]', true);
  const plan = await w.cli(['plan', w.dir]);
  expect(plan.stdout).toContain('# user_share.shop/api-key/dana will be revoked');
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(rotate: 1 reader removed; re-wrapped for 1 reader\)/);
  expect((await w.cli(['apply', w.dir, '--auto-approve'])).code).toBe(0);
  await expectNewValue();
  const danaRead = await w.cliAs(fixtures.tokens.recordOwner, ['read', '--record-id', recordId], { CPLANE_SA_KEY: privateKeyOf(dana.id) });
  expect(danaRead.code).toBe(1);
  expect(danaRead.stdout).toBe('');
  expect((await w.run(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
});

it('destroy revokes the grants before it archives the record', async () => {
  await story('applied', 'replaced', 'rotatedWhenDue', 'danaRemoved');
  const run = await w.cli(['destroy', w.dir, '--auto-approve']);
  expect(run.code).toBe(0);
  const revokedAt = run.stdout.indexOf('service_account_grant.shop/api-key/ci-deployer');
  expect(revokedAt).toBeGreaterThan(-1);
  const record = await w.client.call('getRecord', { path: { id: recordId } });
  expect(record.archived).toBe(true);
  expect(record.grants?.service_account_ids).toEqual([]);
});
