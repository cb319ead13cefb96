// `plan --all` over deployments whose records take a short secret: the warning about it goes to standard error,
// once for the run, not into each deployment's section on standard output.
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
  dev: { account: ${extraAccount(1).id}, variables: { env: dev } }
  prod: { account: ${extraAccount(2).id}, variables: { env: prod } }
projects:
  shop:
    name: shop-\${var.env}
    records:
      api-key: { value: { env: SHORT_KEY } }
`);
});
afterAll(() => w.close());

it('says a short secret is short once, on stderr', async () => {
  const plan = await w.cli(['plan', '--all', w.dir], { SHORT_KEY: 'checkout' });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).not.toContain('Warning: the secret');
  expect(plan.stderr.split('\n').filter((line) => line.startsWith('Warning: the secret from env SHORT_KEY is short'))).toHaveLength(1);
});
