// A secret whose value is an ordinary word (`checkout`) that is also part of names (19 C7). Names and addresses
// are never redacted: the plan, its Markdown and the apply lines show `record "checkout/db-password"` as it is. The
// plan warns, naming the source but not the value, that such a secret collides with ordinary text.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { world, type World } from './helpers.js';

let w: World;
const env = { DB_PW: 'checkout' };

beforeAll(async () => {
  w = await world();
  w.config(`version: 1
projects:
  checkout:
    name: checkout
    records:
      db-password:
        value: { env: DB_PW }
  checkout-assist:
    name: checkout-assist
`);
});
afterAll(() => w.close());

it('plan shows the names whole, and warns about the weak secret', async () => {
  const plan = await w.cli(['plan', w.dir], env);
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('record "checkout/db-password"');
  expect(plan.stdout).toContain('# project.checkout-assist will be created');
  expect(plan.stdout).not.toContain('(sensitive)/');
  expect(plan.stdout).not.toContain('(sensitive)-assist');
  expect(plan.stderr).toContain('Warning: the secret from env DB_PW is short or reads like an ordinary word');

  const markdown = await w.cli(['plan', w.dir, '--markdown'], env);
  expect(markdown.stdout).toContain('`record.checkout/db-password`');
  expect(markdown.stdout).toContain('project.checkout-assist will be created');
  expect(markdown.stdout).not.toMatch(/\(sensitive\)[/-]/);
});

it('apply lines and the summary show the names whole', async () => {
  const apply = await w.cli(['apply', w.dir, '--auto-approve'], env);
  expect(apply.code).toBe(0);
  expect(apply.stdout).toContain('record.checkout/db-password');
  expect(apply.stdout).not.toMatch(/\(sensitive\)[/-]/);
});

it('a long random secret gives no warning', async () => {
  const plan = await w.cli(['plan', w.dir], { DB_PW: 'Zm9vYmFyYmF6cXV4LXJhbmRvbS12YWx1ZQ' });
  expect(plan.stderr).not.toContain('Warning');
});
