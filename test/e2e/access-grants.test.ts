// A record granted to a Service Account through the configuration, as a story through the real CLI and the
// emulator: apply grants `ci-deployer`; it reads the value with its token and private key; a new value is
// wrapped for it again in the same apply; a grant revoked behind cplane's back is drift (exit 2) that apply
// repairs; removing the reader revokes it (its read then fails with the API's reason, and the plan warned);
// an inactive Service Account is a plan error at its name. Nothing secret is printed or stored anywhere.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const FIRST = 'sk_live_grant_first_5521';
const SECOND = 'sk_live_grant_second_8830';

let w: World;
let recordId: string;

const config = (serviceAccounts: string) =>
  w.config(`version: 1
projects:
  shop:
    name: shop-grants
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants:
          serviceAccounts: ${serviceAccounts}
`);

/** `cplane read` as ci-deployer: its token and its private key. */
const readAsServiceAccount = () =>
  w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId], { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) });

// Each test arranges its own world: the steps before the one under test run in-process (the CLI's entry, no
// subprocess); the step under test runs the real CLI. The leak scan runs the whole story itself.
beforeEach(async () => {
  w = await world({ account: acme, dataFile: true });
});
afterEach(async () => w.close());

async function appliedInProcess(value: string): Promise<void> {
  const apply = await w.run(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: value });
  expect(apply.code, apply.stderr).toBe(0);
}
/** The story so far, in-process, step by step as the tests below take it. */
const steps = {
  async granted() {
    config('[ci-deployer]');
    await appliedInProcess(FIRST);
    recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'stripe-key')!.record_id;
  },
  rewrapped: () => appliedInProcess(SECOND),
  async repaired() {
    expect(
      (
        await w.run([
          'api',
          'revokeRecordServiceAccount',
          '--param',
          `id=${recordId}`,
          '--body',
          JSON.stringify({ serviceAccountId: ciDeployer.id }),
        ])
      ).code,
    ).toBe(0);
    await appliedInProcess(SECOND);
  },
  async removed() {
    config('[]');
    await appliedInProcess(SECOND);
  },
};
async function story(...names: (keyof typeof steps)[]): Promise<void> {
  for (const name of names) await steps[name]();
}

it('1-2. apply grants the record to ci-deployer, which reads the value with its token and private key', async () => {
  config('[ci-deployer]');
  const plan = await w.cli(['plan', w.dir], { STRIPE_KEY: FIRST });
  expect(plan.stdout).toContain('# service_account_grant.shop/stripe-key/ci-deployer will be created');
  const apply = await w.cli(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: FIRST });
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const record = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'stripe-key')!;
  recordId = record.record_id;
  expect(record.grants?.service_account_ids).toEqual([ciDeployer.id]);

  const read = await readAsServiceAccount();
  expect(read.stderr).toBe('');
  expect(read.stdout).toBe(`${FIRST}\n`);
});

it('4. a new value is wrapped for the reader again in the same apply, and the plan says so', async () => {
  await story('granted');
  const plan = await w.cli(['plan', w.dir], { STRIPE_KEY: SECOND });
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(re-wrapped for 1 reader\)/);
  const apply = await w.cli(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: SECOND });
  expect(apply.code).toBe(0);
  const read = await readAsServiceAccount();
  expect(read.stdout).toBe(`${SECOND}\n`);
  const again = await w.cli(['plan', w.dir, '--detailed-exitcode'], { STRIPE_KEY: SECOND });
  expect(again.code).toBe(0);
});

it('5. a grant revoked with `cplane api` is drift (exit 2), and apply repairs it', async () => {
  await story('granted', 'rewrapped');
  const revoke = await w.cli([
    'api',
    'revokeRecordServiceAccount',
    '--param',
    `id=${recordId}`,
    '--body',
    JSON.stringify({ serviceAccountId: ciDeployer.id }),
  ]);
  expect(revoke.code).toBe(0);
  expect((await readAsServiceAccount()).code).toBe(1);

  const plan = await w.cli(['plan', w.dir, '--detailed-exitcode'], { STRIPE_KEY: SECOND });
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('service_account_grant.shop/stripe-key/ci-deployer');
  expect(plan.stdout).toContain('service_account_grant.shop/stripe-key/ci-deployer was revoked outside cplane');
  const apply = await w.cli(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: SECOND });
  expect(apply.code).toBe(0);
  expect((await readAsServiceAccount()).stdout).toBe(`${SECOND}\n`);
});

it('7. an inactive Service Account in grants is a plan error naming it at its file:line:col', async () => {
  await story('granted', 'rewrapped', 'repaired');
  config('[ci-deployer, legacy-bot]');
  const plan = await w.cli(['plan', w.dir], { STRIPE_KEY: SECOND });
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain('infra/main.yaml:9:42: error: ');
  expect(plan.stderr).toContain('service_account_grant.shop/stripe-key/legacy-bot: the Service Account "legacy-bot" is inactive');
  config('[ci-deployr]');
  const typo = await w.cli(['plan', w.dir], { STRIPE_KEY: SECOND });
  expect(typo.stderr).toContain(`no Service Account "ci-deployr" in account ${acme}; did you mean "ci-deployer"?`);
});

it("6. removing the reader revokes its grant, with a warning that it may hold the value; its read then fails with the API's reason", async () => {
  await story('granted', 'rewrapped', 'repaired');
  config('[]');
  const plan = await w.cli(['plan', w.dir], { STRIPE_KEY: SECOND });
  expect(plan.stdout).toContain('# service_account_grant.shop/stripe-key/ci-deployer will be revoked');
  expect(plan.stdout).toContain(
    "the reader may still hold the value it could read until now; rotate the record's value unless this plan does",
  );
  const apply = await w.cli(['apply', w.dir, '--auto-approve'], { STRIPE_KEY: SECOND });
  expect(apply.code).toBe(0);
  const read = await readAsServiceAccount();
  expect(read.code).toBe(1);
  expect(read.stdout).toBe('');
  expect(read.stderr).toContain('409 service_account_grant_not_found');
});

it("leaks neither the values nor the private key: not in any output, the state folder or the service's data", async () => {
  await story('granted', 'rewrapped', 'repaired', 'removed');
  const stored = await w.stored();
  expect(stored.length).toBeGreaterThan(1);
  for (const text of [...w.outputs, ...stored]) {
    for (const secret of [FIRST, SECOND, privateKeyOf(ciDeployer.id), w.env.CPLANE_STATE_KEY!]) expect(text).not.toContain(secret);
  }
});
