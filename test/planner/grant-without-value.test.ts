// A grant of a record that will hold no value (an exported folder applied to a new account creates its records
// empty) is a plan problem naming the record and how to give it a value, not an apply that fails on each grant.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { PlanError } from '../../src/planner/errors.js';
import { harness, type Harness } from './harness.js';

const acme = fixtures.accounts[0]!.id;

let h: Harness;
beforeEach(async () => {
  h = await harness({ account: acme });
});
afterEach(async () => h.close());

const config = (value: string) => `
projects:
  shop:
    name: shop-grant-without-value
    records:
      stripe-key:
${value}        grants: { serviceAccounts: [ci-deployer] }
`;

it('refuses the plan, at the grant, naming the record and how to give it a value', async () => {
  h.config(config(''));
  const error = await h.plan().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlanError);
  const [problem, ...rest] = (error as PlanError).diagnostics;
  expect(rest).toEqual([]);
  expect(problem).toMatchObject({ code: 'grant_without_value' });
  expect(problem!.summary).toMatch(/: grants record\.shop\/stripe-key, which will hold no value/);
  expect(problem!.detail).toContain('Give record.shop/stripe-key a value in the configuration');
  expect(problem!.detail).toContain('value: { env: NAME }');
});

it('plans the grant once the record has a value', async () => {
  h.config(config('        value: { env: STRIPE }\n'));
  const plan = await h.plan();
  expect(plan.notices.filter((n) => n.code === 'without_value')).toEqual([]);
  expect(plan.steps.some((s) => s.writes.some((w) => w.operation === 'grantServiceAccount'))).toBe(true);
});
