// `cplane export --as-deployment NAME DIR` over two emulator accounts with the real CLI: account A is exported as a
// folder and arranged into deployments (by hand, as a user would); account B is then added to its `deployments:`
// (comments kept, nothing else copied), and `plan --all` plans both. A name already taken and a configuration
// without deployments are refused before anything is read or written.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extraAccount } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

const [a, b] = [extraAccount(1).id, extraAccount(2).id];
let w: World;
let out: string;
const main = () => readFileSync(join(out, 'main.yaml'), 'utf8');

/** The exported folder arranged into deployments as docs/deployments.md says (the account variable gives way to deployments); its main.yaml. */
function arrangedIntoDeployments(): string {
  const arranged = main()
    .replace('account: ${var.account}\n', `deployments:\n  # the account exported first\n  a: { account: ${a} }\n`)
    .replace(/variables:\n {2}account:\n {4}description: .*\n/, '');
  writeFileSync(join(out, 'main.yaml'), arranged);
  return arranged;
}

describe('export --as-deployment', () => {
  // Each test arranges its own world: account A applied and exported in-process (the CLI's entry, no subprocess);
  // the step under test runs the real CLI.
  beforeEach(async () => {
    w = await world({ accounts: 2 });
    w.config('version: 1\nprojects:\n  app: { description: the app }\n');
    expect((await w.run(['apply', w.dir, '--auto-approve', '--account', a])).code).toBe(0);
    out = join(w.dir, '..', 'multi');
    const exported = await w.run(['export', '--account', a, '--out', out]);
    expect(exported.code).toBe(0);
  });
  afterEach(async () => w.close());

  it('refuses a configuration without deployments:, saying how to start one, and changes nothing', async () => {
    const before = main();
    const run = await w.cli(['export', '--account', b, '--as-deployment', 'b', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`The configuration ${out} has no \`deployments:\`; nothing was read or written.`);
    expect(run.stderr).toContain('deployments:\n    <name>: { account: <its account id> }');
    expect(main()).toBe(before);
  });

  it('adds account B to the deployments of the arranged folder, keeping its comments, and plan --all plans both', async () => {
    expect(arrangedIntoDeployments()).not.toContain('var.account');
    // In canonical form (`cplane fmt`), as a team keeps its folder, with a flow list the yaml library would respace: the export must leave it so.
    writeFileSync(join(out, 'main.yaml'), `${main()}variables:\n  teams: { type: list, default: [web, shop] }\n`);
    expect((await w.run(['fmt', out])).code).toBe(0);
    const arranged = main();

    const run = await w.cli(['export', '--account', b, '--as-deployment', 'b', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Added deployment b (account ${b}) to `);
    expect(run.stdout).toContain(`plan --deployment b ${out}`);
    const text = main();
    expect(text).toBe(`${arranged.replace(`  a: { account: ${a} }\n`, `  a: { account: ${a} }\n  b: { account: ${b} }\n`)}`);
    expect(text).toContain('default: [web, shop]');
    // Every other byte of the file is as it was: a folder `cplane fmt --check` passed still passes.
    expect((await w.run(['fmt', '--check', out])).code).toBe(0);
    expect(text).toContain('# the account exported first');

    const plan = await w.cli(['plan', '--all', out]);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('Deployments: 2 planned');
    // A's plan adopts the project it was exported from (the IMPORT column counts it); B has nothing yet: its plan adds it.
    expect(plan.stdout).toMatch(/ADD +CHANGE +REPLACE +REMOVE +IMPORT +POLICY +INCOMPLETE +STATUS/);
    expect(plan.stdout).toMatch(new RegExp(`\\na +Tenant 1 \\(${a}\\) +0 +0 +0 +0 +1 +0 +0 +changes`));
    expect(plan.stdout).toMatch(new RegExp(`\\nb +Tenant 2 \\(${b}\\) +1 +0 +0 +0 +0 +0 +0 +changes`));
  });

  it('refuses a name the configuration already has, reading and writing nothing', async () => {
    arrangedIntoDeployments();
    const before = main();
    const run = await w.cli(['export', '--account', b, '--as-deployment', 'a', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `The configuration ${out} already has a deployment "a" (${join(out, 'main.yaml')}); nothing was read or written.`,
    );
    expect(main()).toBe(before);
  });

  it('refuses --out beside it, and a name that is not a deployment name', async () => {
    const withOut = await w.cli(['export', '--as-deployment', 'c', '--out', 'x', out]);
    expect(withOut.code).toBe(1);
    expect(withOut.stderr).toContain('--out cannot be combined with --as-deployment');
    const badName = await w.cli(['export', '--as-deployment', 'Bad Name', out]);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain('--as-deployment "Bad Name" is not a deployment name.');
  });
});

// The new deployment's variables are read off the account's objects: the configuration's names are templates
// (`payments-${var.env}`), the account's objects carry the real names (`payments-staging`).
describe('export --as-deployment: the variables the new deployment needs', () => {
  let fleet: string;
  const fleetMain = () => readFileSync(join(fleet, 'main.yaml'), 'utf8');
  /** Account B holds `names` (applied from a folder of their own); the fleet folder is `yaml`, in canonical form. */
  async function arrange(names: string[], yaml: string): Promise<void> {
    w = await world({ accounts: 2 });
    w.config(
      `version: 1\nprojects:\n${names.map((n) => `  ${n.replace(/-/g, '_')}: { name: ${n}, description: payments in us }\n`).join('')}`,
    );
    expect((await w.run(['apply', w.dir, '--auto-approve', '--account', b])).code).toBe(0);
    fleet = join(w.dir, '..', 'fleet');
    mkdirSync(fleet);
    writeFileSync(join(fleet, 'main.yaml'), yaml);
    expect((await w.run(['fmt', fleet])).code).toBe(0);
  }
  afterEach(async () => w.close());

  const FLEET = `version: 1
variables:
  env: { type: string }
  region: { type: string, default: eu }
  team: { type: string, default: payments }
deployments:
  dev: { account: ${a}, variables: { env: dev } }
projects:
  payments: { name: "payments-\${var.env}", description: "\${var.team} in \${var.region}" }
`;

  it('gives a required env and a value that differs from its default, leaves out one equal to it, and the plan adopts everything', async () => {
    await arrange(['payments-staging'], FLEET);
    const before = fleetMain();
    const run = await w.cli(['export', '--account', b, '--as-deployment', 'staging', fleet]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Its variables read off this account's objects: env: staging, region: us, team: payments");
    expect(fleetMain()).toBe(
      before.replace(
        'variables: { env: dev }\n',
        `variables: { env: dev }\n  staging:\n    account: ${b}\n    variables: { env: staging, region: us }\n`,
      ),
    );
    expect((await w.run(['fmt', '--check', fleet])).code).toBe(0);
    const plan = await w.cli(['plan', '--deployment', 'staging', fleet, '--json']);
    expect(plan.stderr).toBe('');
    // The account's object is adopted as it is: nothing added, removed or changed.
    const [planned] = (
      JSON.parse(plan.stdout) as {
        deployments: { summary: Record<string, unknown>; plan: { steps: { address: string; action: string; changes: unknown[] }[] } }[];
      }
    ).deployments;
    expect(planned!.summary).toMatchObject({ add: 0, change: 0, replace: 0, remove: 0, import: 1 });
    expect(planned!.plan.steps.map((s) => [s.address, s.action, s.changes])).toEqual([['project.payments', 'import', []]]);
  });

  it('writes a placeholder for a required variable no object gives, names it on stderr at its line, and validate refuses it there', async () => {
    await arrange(['ledger'], FLEET);
    const run = await w.cli(['export', '--account', b, '--as-deployment', 'staging', fleet]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      '1 setting of deployment staging is left to fill (a "<fill in: ...>" placeholder in the file, refused by validate, plan and apply until replaced):\n' +
        '  fleet/main.yaml:20:13 deployments.staging.variables.env: the value of variable env for this deployment: no object of its account gives it\n',
    );
    expect(fleetMain()).toContain(
      `  staging:\n    account: ${b}\n    variables:\n      env: "<fill in: the value of variable env for this deployment: no object of its account gives it>"\n`,
    );
    expect((await w.run(['fmt', '--check', fleet])).code).toBe(0);
    const validated = await w.cli(['validate', fleet]);
    expect(validated.stderr).toContain(
      'fleet/main.yaml:20:13: error: deployments.staging.variables.env is still the placeholder `cplane export --as-deployment` wrote: give the value of variable env for this deployment: no object of its account gives it',
    );
  });

  it('names both objects when two give a variable different values, and writes a placeholder for it', async () => {
    await arrange(['payments-staging', 'web-prod'], `${FLEET}  web: { name: "web-\${var.env}" }\n`);
    const run = await w.cli(['export', '--account', b, '--as-deployment', 'staging', fleet]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'Variable "env": projects.payments (name) gives "staging" (live "payments-staging") but projects.web (name) gives "prod" (live "web-prod").\n',
    );
    expect(run.stderr).toContain(
      "deployments.staging.variables.env: the value of variable env for this deployment: two objects of its account give different values (the export's report names them)\n",
    );
    expect(fleetMain()).toContain(
      `  staging:\n    account: ${b}\n    variables:\n      env: "<fill in: the value of variable env for this deployment: two objects of its account give different values (the export's report names them)>"\n      region: us\n`,
    );
  });
});
