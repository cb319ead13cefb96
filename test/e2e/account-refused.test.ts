// An account that refuses the token itself (the token's user is not a member; an inactive Service Account) is one
// error naming the account and the API's reason, exit 1, through the real CLI: for `plan` (with
// --detailed-exitcode too), `apply --auto-approve`, and for that deployment's row of `plan --all` and `apply --all`.
// A mistyped but valid account id in CI is red, not "Plan incomplete" and green. Reads refused one by one still
// make an incomplete plan (test/planner/service-account.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { acme, world, type World } from './helpers.js';

/** Globex: Ada, whose token the world uses, is not a member of it. */
const globex = fixtures.accounts[2]!.id;
const tenant = extraAccount(1).id;
const config = `version: 1
projects:
  shop:
    name: shop-refused
    records:
      key: { value: { env: SHOP_KEY } }
`;
const SHOP_KEY = 'sk_live_account_refused_5529_long_enough';
const refusedIn = (account: string) => `Error: The API refuses this token in account ${account}: `;

let w: World;
beforeAll(async () => {
  w = await world({ account: globex, accounts: 1 });
  w.config(config);
});
afterAll(async () => w.close());

describe('an account that refuses the token', () => {
  it.each([
    ['plan', ['plan', 'infra']],
    ['plan --detailed-exitcode', ['plan', '--detailed-exitcode', 'infra']],
    ['apply --auto-approve', ['apply', '--auto-approve', 'infra']],
  ])('%s fails with one error naming the account and not_account_member, exit 1', async (_name, args) => {
    const run = await w.cli(args, { SHOP_KEY });
    expect(run.code).toBe(1);
    expect(run.stderr.startsWith(refusedIn(globex)), run.stderr).toBe(true);
    expect(run.stderr).toContain('403 forbidden (not_account_member)');
    expect(run.stderr.match(/Error:/g)).toHaveLength(1);
    expect(run.stdout).not.toContain('incomplete');
    expect(run.stdout).not.toContain('could not be read');
  });

  it('an inactive Service Account is the same error, naming its reason', async () => {
    const run = await w.cli(['plan', 'infra'], { CPLANE_TOKEN: fixtures.tokens.inactiveServiceAccount, CPLANE_ACCOUNT: acme, SHOP_KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Error: The API refuses this token( in account \S+)?: \w+ answered 403 forbidden \(service_account_inactive\)/,
    );
    expect(run.stderr).toContain('is inactive');
  });

  /** Two deployments: `good` in an account Ada administers, `typo` in Globex. */
  const deployments = `${config}deployments:
  good: { account: ${tenant} }
  typo: { account: ${globex} }
`;

  it('plan --all: the refused deployment is an error row, the other is planned, exit 1 (not 3)', async () => {
    w.config(deployments);
    const run = await w.cli(['plan', '--all', '--detailed-exitcode', 'infra'], { SHOP_KEY });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`typo +${globex} +- +- +- +- +- +- +error: The API refuses this token in account ${globex}`));
    expect(run.stdout).toMatch(/good +Tenant 1 \S+ +2 +0 +0 +0 +0 +0 +changes/);
    expect(run.stdout).not.toContain('incomplete');
  });

  it('apply --all --auto-approve: the refused deployment failed with the error, the other is applied, exit 1', async () => {
    w.config(deployments);
    const run = await w.cli(['apply', '--all', '--auto-approve', 'infra'], { SHOP_KEY });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${refusedIn(globex)}listProjects answered 403 forbidden (not_account_member)`);
    expect(run.stdout).toMatch(new RegExp(`Deployments: applied good; failed typo \\(The API refuses this token in account ${globex}: `));
    expect(run.stdout).not.toContain('incomplete');
  });
});
