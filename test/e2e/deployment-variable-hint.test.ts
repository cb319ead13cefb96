// A deployment that lacks a required variable (one `export --as-deployment` added, say): the error says to give
// it in the deployment's entry, `deployments.NAME.variables`, not with --var.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { extraAccount } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world({ accounts: 2 });
  w.config(`version: 1
variables:
  env: { type: string }
deployments:
  a: { account: ${extraAccount(1).id}, variables: { env: dev } }
  b: { account: ${extraAccount(2).id} }
projects:
  shop: { name: "shop-\${var.env}" }
`);
});
afterAll(() => w.close());

it('names deployments.NAME.variables as where to give it', async () => {
  const plan = await w.cli(['plan', '--all', w.dir]);
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain('Variable "env" is required but has no value');
  expect(plan.stdout).toContain("Give it in deployments.b.variables (env: VALUE), or in one of the deployment's varFiles.");
  expect(plan.stdout).not.toContain('--var env=VALUE');
});
