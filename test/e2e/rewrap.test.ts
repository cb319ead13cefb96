// `--rewrap`, the one apply after upgrading from wrappers made before they were authenticated: every record value
// with a reader is written again as a new version, bound to its record, and wrapped for every reader under the
// writer key in the same apply; the plan says so; the reader reads the same value (a value from a source) or a new
// one (a generated value); a plain plan after it has no changes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const VALUE = 'sk_live_rewrap_4410';
let w: World;

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  shop:
    name: shop-rewrap
    records:
      stripe-key: { value: { env: STRIPE_KEY }, grants: { serviceAccounts: [ci-deployer] } }
      salt: { value: { generate: { length: 24 } } }
`);
  // Arrangement, in-process (the CLI's entry, no subprocess): the --rewrap plan and apply run the real CLI.
  expect((await w.run(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: VALUE })).code).toBe(0);
});
afterAll(async () => w.close());

it('plans a new, re-wrapped version of every record value, applies it, and the reader reads it under the writer key', async () => {
  const recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'stripe-key')!.record_id;
  const plan = await w.cli(['plan', w.dir, '--rewrap', '--detailed-exitcode'], { STRIPE_KEY: VALUE });
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('~ value = (sensitive)  (re-wrapped for 1 reader)');
  // A generated value is generated anew: a rotation.
  expect(plan.stdout).toContain('# record.shop/salt will have its secret rotated');
  expect(plan.stdout).toContain('Plan: 0 to add, 2 to change, 0 to replace, 0 to remove.');
  expect((await w.cli(['apply', w.dir, '--rewrap', '--auto-approve'], { STRIPE_KEY: VALUE })).code).toBe(0);
  expect((await w.client.call('getRecord', { path: { id: recordId } })).current_version).toBe(2);
  const read = await w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId, '--min-version', '2'], {
    CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
  });
  expect(read.stderr).toBe('');
  expect(read.stdout).toBe(`${VALUE}\n`);
  expect((await w.cli(['plan', w.dir, '--detailed-exitcode'], { STRIPE_KEY: VALUE })).code).toBe(0);
});

it('is refused with --refresh-only, as a write', async () => {
  const run = await w.cli(['plan', w.dir, '--rewrap', '--refresh-only'], { STRIPE_KEY: VALUE });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('--rewrap cannot be used with --refresh-only');
});
