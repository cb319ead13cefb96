// Every deployment's secret sources are redacted in every deployment's section: a source whose name is interpolated
// (`DB_PASSWORD_${var.env}`, as docs/deployments.md recommends) reads DB_PASSWORD_dev for dev and DB_PASSWORD_prod
// for prod, and a line of the configuration holding both values is quoted in each section with neither shown, in
// the snippet (secret-snippets.ts) and anywhere else the process prints (the redactor).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { extraAccount } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

const DEV = 'dev-db-password-7731x';
const PROD = 'prod-db-password-9942y';

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
    notes: "${DEV} ${PROD}"
    records:
      db-password: { value: { env: "DB_PASSWORD_\${var.env}" } }
`);
});
afterAll(() => w.close());

it("validate --all quotes the line in both sections with dev's and prod's values redacted in each", async () => {
  const run = await w.cli(['validate', '--all', w.dir], { DB_PASSWORD_dev: DEV, DB_PASSWORD_prod: PROD });
  expect(run.code).toBe(1);
  const output = run.stdout + run.stderr;
  expect(output).toContain('=== deployment dev');
  expect(output).toContain('=== deployment prod');
  expect(output).not.toContain(DEV);
  expect(output).not.toContain(PROD);
  expect(output.match(/notes: "<redacted> <redacted>"/g)).toHaveLength(2);
});

it("only the chosen deployment loaded (--deployment prod): dev's value is redacted too", async () => {
  const run = await w.cli(['validate', '--deployment', 'prod', w.dir], { DB_PASSWORD_dev: DEV, DB_PASSWORD_prod: PROD });
  expect(run.code).toBe(1);
  expect(run.stdout + run.stderr).not.toContain(DEV);
  expect(run.stdout + run.stderr).toContain('notes: "<redacted> <redacted>"');
});
