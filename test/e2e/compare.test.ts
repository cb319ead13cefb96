// `cplane compare A B` as a team runs it after applying two deployments: what their variables explain is not a
// difference (a name built from `env`, the environment variable name export makes from it for an OTel header,
// the objects a list variable makes; a value matched as a word, never inside another), and an object no deployment's state manages is left out unless --unmanaged.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

const [t1, t2] = [extraAccount(1).id, extraAccount(2).id];
let w: World;
beforeAll(async () => {
  w = await world({ accounts: 2 });
  w.config(`version: 1
variables:
  env: { type: string }
  teams: { type: list }
  region: { type: string }
deployments:
  dev: { account: ${t1}, variables: { env: dev, teams: [billing, search], region: ap } }
  prod: { account: ${t2}, variables: { env: prod, teams: [billing], region: eu } }
projects:
  # A value is replaced where it stands as a word, not inside one: "ap" of dev's region is not in "app".
  app:
    description: Runs in \${var.region}
  shop:
    name: shop-\${var.env}
    description: Shop \${var.env}
  team:
    forEach: \${var.teams}
    name: team-\${each.key}
credentials:
  openai: { provider: openai, label: "openai-\${var.env}", secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: shop
    name: Shop gateway \${var.env}
    slug: shop-\${var.env}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    otelExport:
      endpoint: https://otel.example.com/v1
      headers: { X-Team: { env: OTEL_TEAM } }
`);
  const applied = await w.run(['apply', '--all', w.dir, '--auto-approve'], { OTEL_TEAM: 'team-header-secret' });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  // Made by hand in prod: no configuration manages it.
  const prod = createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: t2 });
  await prod.call('createProject', { body: { accountId: t2, name: 'scratch', description: 'by hand' } });
  await prod.close();
});
afterAll(() => w.close());

it('finds no difference the variables explain, and leaves out what no state manages', async () => {
  const run = await w.cli(['compare', 'dev', 'prod', w.dir]);
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('No differences: the two accounts match.');
  expect(run.code).toBe(0);
});

it('--unmanaged compares every object of the accounts', async () => {
  const run = await w.cli(['compare', 'dev', 'prod', w.dir, '--unmanaged', '--json']);
  expect(run.code).toBe(2);
  // The objects the variables explain stay explained: the one by hand is all that differs.
  expect(JSON.parse(run.stdout).differences).toEqual([{ address: 'project.scratch', kind: 'only-in-b' }]);
});
