// `cplane compare A B` matches a variable's value where the configuration's template puts it, as
// `export --as-deployment` solves templates, not as a word of the text: `region: ap` is part of `app-ap-main`,
// `apcore` and `app-ap2` alike, and two accounts applied from one configuration compare equal; a real difference
// (a setting changed by hand) is still shown.
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
  region: { type: string }
deployments:
  asia: { account: ${t1}, variables: { region: ap } }
  europe: { account: ${t2}, variables: { region: eu } }
projects:
  main:
    name: app-\${var.region}-main
    description: Main app in \${var.region}
  core:
    name: \${var.region}core
    description: Core of \${var.region}2
  tools:
    name: app-tools
    description: app tools, same everywhere
`);
  const applied = await w.run(['apply', '--all', w.dir, '--auto-approve']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
});
afterAll(() => w.close());

it('two accounts applied from one configuration compare equal, the value being part of a name', async () => {
  const run = await w.cli(['compare', 'asia', 'europe', w.dir]);
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('No differences: the two accounts match.');
  expect(run.code).toBe(0);
});

it('a setting changed by hand is still a difference', async () => {
  const europe = createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: t2 });
  const project = (await europe.listAll('listProjects', {})).find((p) => p.name === 'eucore')!;
  await europe.call('updateProject', { path: { id: project.project_id }, body: { name: 'eucore', description: 'changed by hand' } });
  await europe.close();
  const run = await w.cli(['compare', 'asia', 'europe', w.dir, '--json']);
  expect(run.code).toBe(2);
  expect(JSON.parse(run.stdout).differences).toEqual([
    { address: 'project.core', kind: 'different', field: 'description', a: 'Core of ${var.region}2', b: 'changed by hand' },
  ]);
});
