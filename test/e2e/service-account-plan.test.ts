// The pull request's plan with the token docs/ci.md recommends for it (issue 48 §2): a Service Account token, which
// cannot call the human-only GET /service-accounts (the emulator answers 403, as the spec says). On a configuration
// that grants a record to a Service Account, the plan is made, with a warning on exactly the grant steps ("checked at
// apply"), and exits 0 or 2 (never 1); the apply, with a person's token, checks the Service Account and grants.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { world, type World } from './helpers.js';

const acme = fixtures.accounts[0]!.id;
const env = { STRIPE_KEY: 'sk_live_abcdef123456', OTHER_KEY: 'sk_live_fedcba654321' };
const grants = (names: string) => `version: 1
projects:
  shop:
    name: shop-sa-plan
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants:
          serviceAccounts: [${names}]
      other-key:
        value: { env: OTHER_KEY }
`;

let w: World;
beforeAll(async () => {
  w = await world({ account: acme });
  w.config(grants('ci-deployer'));
  expect((await w.cli(['apply', 'infra', '--auto-approve'], env)).code).toBe(0);
});
afterAll(() => w.close());

it('the emulator refuses GET /service-accounts to a Service Account token, as the spec says (H)', async () => {
  const run = await w.cli(['api', 'listServiceAccounts'], { CPLANE_TOKEN: fixtures.tokens.serviceAccount });
  expect(run.code).toBe(1);
  expect(run.stdout + run.stderr).toMatch(/human-only|403/);
});

it('a Service Account token plans, warning on exactly the grant steps; a person token applies and checks them', async () => {
  const sa = { ...env, CPLANE_TOKEN: fixtures.tokens.serviceAccount };
  const clean = await w.cli(['plan', 'infra', '--json'], sa);
  expect(clean.code, clean.stderr).toBe(0);
  const notices = (JSON.parse(clean.stdout) as { notices: { code: string; address?: string; severity: string; message: string }[] })
    .notices;
  expect(notices.filter((n) => n.code === 'service_account_unchecked')).toEqual([
    expect.objectContaining({
      address: 'service_account_grant.shop/stripe-key/ci-deployer',
      severity: 'warning',
      message: 'service_account_grant.shop/stripe-key/ci-deployer: a Service Account token cannot list service accounts: checked at apply',
    }),
  ]);

  // A new grant to another Service Account: a change, planned with the warning on it alone.
  w.config(grants('ci-deployer, legacy-bot'));
  const changed = await w.cli(['plan', 'infra'], sa);
  expect(changed.stderr).not.toContain('Error');
  expect(changed.code).toBe(0);
  expect(changed.stdout).toContain('+   service_account_grant "shop/stripe-key/legacy-bot"');
  // With --detailed-exitcode: the grants are no reason for "incomplete"; only what a Service Account may not read
  // at all (the project, GET /projects being human-only) is listed as unread, as before.
  const detailed = await w.cli(['plan', 'infra', '--detailed-exitcode', '--json'], sa);
  expect(detailed.code).not.toBe(1);
  const plan = JSON.parse(detailed.stdout) as { unreadable: { address?: string; operation: string }[] };
  expect(plan.unreadable.map((u) => `${u.address ?? '*'} ${u.operation}`)).toEqual(['project.shop listProjects']);
  expect(changed.stdout).toContain('Checked at apply');
  expect(changed.stdout).toContain(
    'service_account_grant.shop/stripe-key/legacy-bot: a Service Account token cannot list service accounts: checked at apply',
  );
  expect(changed.stdout).not.toMatch(/other-key: a Service Account token/);

  // The apply holds a person's token: it lists the Service Accounts and refuses the inactive one, naming it.
  const applied = await w.cli(['apply', 'infra', '--auto-approve'], env);
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain('the Service Account "legacy-bot" is inactive');
  w.config(grants('ci-deployer'));
  expect((await w.cli(['apply', 'infra', '--auto-approve'], env)).code).toBe(0);
});
