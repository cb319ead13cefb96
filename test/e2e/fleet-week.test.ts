// The new user's week over a fleet (issue 41), with the real CLI against the emulator: four deployments on four
// accounts, each with its own token (deployments.NAME.token: NAME, read from CPLANE_TOKEN_<NAME>) and its own secret; no CPLANE_TOKEN at all.
// validate --all fails for prod's value alone; a dev plan runs with dev's token and secret only; drift --all finds the
// one account changed outside cplane; reconcile --all --github (the action's steps on a fake runner) keeps one issue
// per deployment, closed when that deployment is clean again, and one deployment that fails stops no other;
// access report --all --format csv has a deployment column; access offboard dana --all --out DIR then apply DIR takes
// Dana off every account; writer-key --deployment prod prints the key alone.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { driftMarkerOf } from '../../src/github/drift-issue.js';
import { fakeRunner, issuesApi, type IssuesApi, type Runner } from '../github/fake-github.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { runCli, world, type World } from './helpers.js';

const names = ['dev', 'staging', 'prod', 'sandbox'] as const;
const accountOf = { dev: extraAccount(1).id, staging: extraAccount(2).id, prod: extraAccount(3).id, sandbox: extraAccount(4).id };
const dana = fixtures.users.find((u) => u.name === 'Dana Developer')!;
const repository = 'acme/infra';
const tokenVariable = (name: string) => `CPLANE_TOKEN_${name.toUpperCase()}`;
const secretVariable = (name: string) => `DB_PASSWORD_${name}`;

/** `prod` is prod's extra variable values, as YAML flow entries (`, seats: 7`). dev's token is bound to its own address (CPLANE_BASE_URL_DEV), which its baseUrl checks. */
function configuration(prod = ''): string {
  const entry = (name: string, extra = '', after = '') =>
    `  ${name}: { account: ${accountOf[name as keyof typeof accountOf]}, token: ${name}, variables: { env: ${name}${extra} }${after}${name === 'dev' ? `, baseUrl: "${w.emulator.url}"` : ''} }`;
  return `version: 1
variables:
  env: { type: string }
  seats: { type: number, default: 5 }
deployments:
${entry('dev')}
${entry('staging', '', ', after: [dev]')}
${entry('prod', prod, ', after: [staging]')}
${entry('sandbox')}
projects:
  shop:
    name: shop-\${var.env}
    description: shop \${var.env} with \${var.seats} seats
    records:
      api-key:
        value: { generate: { length: 32 } }
        grants: { users: [dana] }
      db-password:
        value: { env: "DB_PASSWORD_\${var.env}" }
directory:
  users:
    dana: { id: ${dana.id}, publicKey: "${printableKeyPair(dana.id).publicKey}" }
`;
}

let w: World;
let runner: Runner;
let api: IssuesApi;
/** Every deployment's token and secret, and nothing of the one-account setup: no CPLANE_TOKEN, no CPLANE_ACCOUNT. */
let env: NodeJS.ProcessEnv;
const folder = () => join(runner.workspace, 'infra');
const cli = (args: string[], extra: NodeJS.ProcessEnv = env) => runCli(args, extra, runner.workspace);
const arranged = async (args: string[]) => {
  const run = await runInProcess(args, env, runner.workspace);
  expect(run.code, run.stdout + run.stderr).toBe(0);
};
const clientOf = (name: keyof typeof accountOf) =>
  createClient({ baseUrl: w.emulator.url, token: fixtures.tokens.admin, accountId: accountOf[name] });
const config = (yaml: string) => writeFileSync(join(folder(), 'main.yaml'), yaml);

/** staging's project changed outside cplane: the one account with drift. */
async function stagingChangedByHand(): Promise<void> {
  const staging = clientOf('staging');
  const shop = (await staging.listAll('listProjects', {})).find((p) => p.name === 'shop-staging')!;
  await staging.call('updateProject', {
    path: { id: shop.project_id },
    body: { name: 'shop-staging', description: 'changed by hand', isActive: true },
  });
  await staging.close();
}

// Each test arranges its own fleet (a world of four accounts, the configuration, a runner and an issues API); the
// week's earlier days it needs are applied in-process (`arranged`).
beforeEach(async () => {
  w = await world({ accounts: 4 });
  runner = fakeRunner();
  api = await issuesApi(repository);
  mkdirSync(folder());
  const { CPLANE_TOKEN: _token, CPLANE_ACCOUNT: _account, ...base } = w.env;
  env = {
    ...base,
    ...Object.fromEntries(
      names.flatMap((name) => [
        [tokenVariable(name), fixtures.tokens.admin],
        [secretVariable(name), `db-password-of-${name}-0123456789abcdef`],
      ]),
    ),
    CPLANE_BASE_URL_DEV: w.emulator.url,
    CI: '1',
    GITHUB_API_URL: api.url,
    GITHUB_REPOSITORY: repository,
    GITHUB_EVENT_NAME: 'schedule',
  };
  config(configuration());
});
afterEach(async () => {
  runner.close();
  await api.close();
  await w.close();
});

describe("the new user's week over four deployments", () => {
  it('validate --all checks each deployment with its own values: a value only prod gives fails prod alone', async () => {
    config(configuration(', seats: many'));
    const { code, stdout } = await cli(['validate', 'infra', '--all']);
    expect(code).toBe(1);
    const sections = stdout.split('=== deployment ').slice(1);
    expect(sections.map((s) => s.split(' ')[0])).toEqual([...names]);
    expect(sections[0]).toContain('Configuration is valid: 4 resources in 1 file.');
    expect(sections[2]).toMatch(/infra\/main\.yaml:\d+:\d+: error: Variable "seats" must be a number; deployment prod gives "many"/);
    expect(stdout).toMatch(
      /Deployments:\n {2}dev +\S+ +ok\n {2}staging +\S+ +ok\n {2}prod +\S+ +failed \(see its section\)\n {2}sandbox +\S+ +ok\n$/,
    );
    // Without --all it has no values to check, so the error went unseen (what the team met).
    expect((await cli(['validate', 'infra'])).code).toBe(0);
    // cplane test --all runs the test files once per deployment, with its account and values.
    mkdirSync(join(folder(), 'tests'));
    writeFileSync(
      join(folder(), 'tests', 'shop.cptest.yaml'),
      `env: { ${names.map((name) => `${secretVariable(name)}: fake-password-of-${name}-0123456789`).join(', ')} }
runs:
  - name: a first plan creates the shop
    command: plan
    expect: ['plan.add == 4']
`,
    );
    const tested = await cli(['test', 'infra', '--all']);
    expect(tested.code).toBe(1);
    expect(tested.stdout).toMatch(
      / {2}dev +\S+ +ok\n {2}staging +\S+ +ok\n {2}prod +\S+ +failed \(see its section\)\n {2}sandbox +\S+ +ok\n$/,
    );
    expect(tested.stdout.split('=== deployment ')[3]).toContain('Variable "seats" must be a number; deployment prod gives "many"');
  });

  it('init --all lists what each deployment reads: its own token and secret source, not CPLANE_TOKEN nor the values it gives', async () => {
    config(configuration());
    const { code, stdout } = await cli(['init', 'infra', '--all', '--json']);
    expect(code).toBe(0);
    const { deployments } = JSON.parse(stdout) as {
      deployments: { deployment: string; result: { environment: { name: string; use: string }[] } }[];
    };
    for (const { deployment, result } of deployments) {
      const read = result.environment.map((e) => e.name);
      expect(read, deployment).not.toContain('CPLANE_TOKEN');
      expect(read, deployment).not.toContain('CPLANE_VAR_env');
      expect(
        read.filter((name) => name.startsWith('CPLANE_TOKEN')),
        deployment,
      ).toEqual([tokenVariable(deployment)]);
      // Its secret source's interpolated name, with the deployment's value filled in.
      expect(
        read.filter((name) => name.startsWith('DB_PASSWORD')),
        deployment,
      ).toEqual([secretVariable(deployment)]);
    }
    // dev's token has an address of its own.
    expect(deployments[0]!.result.environment.map((e) => e.name)).not.toContain('CPLANE_BASE_URL');
  });

  it("a dev plan needs dev's token and secret only: prod's are unset", async () => {
    config(configuration());
    // Not even CPLANE_BASE_URL: dev's token is bound to CPLANE_BASE_URL_DEV.
    const devOnly = Object.fromEntries(
      Object.entries(env).filter(
        ([name]) => !/^CPLANE_TOKEN_(STAGING|PROD|SANDBOX)$|^DB_PASSWORD_(staging|prod|sandbox)$|^CPLANE_BASE_URL$/.test(name),
      ),
    );
    const dev = await cli(['plan', 'infra', '--deployment', 'dev', '--detailed-exitcode'], devOnly);
    expect(dev.stderr).toBe('');
    expect(dev.code).toBe(2);
    expect(dev.stdout).toContain('+ name = "shop-dev"');
    // Its saved plan, applied alone, connects with dev's token and address too.
    expect((await cli(['plan', 'infra', '--deployment', 'dev', '--out', 'dev-plans'], devOnly)).code).toBe(0);
    const applied = await cli(['apply', 'dev-plans/dev.plan.json'], devOnly);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    // prod, planned with what dev's job holds, says which variable it lacks; never CPLANE_TOKEN's word for it.
    const prod = await cli(['plan', 'infra', '--deployment', 'prod'], { ...devOnly, CPLANE_BASE_URL: w.emulator.url });
    expect(prod.code).toBe(1);
    expect(prod.stdout).toContain('error: No API token for the deployment prod: CPLANE_TOKEN_PROD is not set.');
  });

  it('drift --all: the one account changed outside cplane has drift, the others none; exit 2', async () => {
    await arranged(['apply', 'infra', '--all', '--auto-approve']);
    await stagingChangedByHand();
    const { code, stdout } = await cli(['drift', 'infra', '--all']);
    expect(code).toBe(2);
    const sections = Object.fromEntries(
      stdout
        .split('=== deployment ')
        .slice(1)
        .map((s) => [s.split(' ')[0], s]),
    );
    expect(sections.staging).toContain('project.shop');
    for (const name of ['dev', 'prod', 'sandbox']) expect(sections[name]).toContain('No drift');
  });

  it('reconcile --all --github: one issue per deployment that waits for a person, closed when it is clean again', async () => {
    // prod's values change (a change reconcile leaves for a person); staging's drift (left too: autoApply is maintenance).
    await arranged(['apply', 'infra', '--all', '--auto-approve']);
    await stagingChangedByHand();
    config(configuration(', seats: 7'));
    const inputs = { command: 'reconcile', 'working-directory': '.', args: 'infra --all', comment: 'true' };
    const job = async (extra: NodeJS.ProcessEnv = {}) => ({
      run: await runner.step('cplane', inputs, { ...env, ...extra }),
      issue: await runner.step('drift-issue', inputs, env),
    });
    const key = (name: keyof typeof accountOf) => `infra:${accountOf[name]}@default`;

    const first = await job();
    expect(first.run.code, first.run.stdout + first.run.stderr).toBe(0);
    expect(JSON.parse(first.run.outputs.issues!)).toEqual(
      names.map((name) =>
        expect.objectContaining({ deployment: name, key: key(name), topic: 'reconcile', open: name === 'staging' || name === 'prod' }),
      ),
    );
    expect(first.issue.stdout).toBe(
      [
        `No step waiting for a person for ${key('dev')}, and no open reconcile issue.`,
        `Reconcile issue #1 for ${key('staging')}: opened.`,
        `Reconcile issue #2 for ${key('prod')}: opened.`,
        `No step waiting for a person for ${key('sandbox')}, and no open reconcile issue.`,
        '',
      ].join('\n'),
    );
    expect(api.issues.map((i) => i.title)).toEqual([
      `cplane: changes waiting for a person in ${key('staging')}`,
      `cplane: changes waiting for a person in ${key('prod')}`,
    ]);
    expect(api.issues[0]!.body.startsWith(driftMarkerOf(key('staging'), 'reconcile'))).toBe(true);
    expect(api.issues[1]!.body).toContain('project.shop');
    expect(runner.summary()).toContain(`### deployment prod (account ${accountOf.prod})`);

    // A person applies; the next scheduled run, with sandbox's token gone, still reconciles the other three and closes both issues.
    await arranged(['apply', 'infra', '--all', '--auto-approve']);
    const second = await job({ CPLANE_TOKEN_SANDBOX: '' });
    expect(second.run.code).toBe(1);
    expect(second.run.stdout).toContain('No API token for the deployment sandbox: CPLANE_TOKEN_SANDBOX is not set.');
    expect(second.run.stdout).toMatch(/ {2}dev +\S+ +ok\n {2}staging +\S+ +ok\n {2}prod +\S+ +ok\n {2}sandbox +\S+ +failed: No API token/);
    expect(second.issue.stdout).toContain(`Reconcile issue #1 for ${key('staging')}: closed.`);
    expect(second.issue.stdout).toContain(`Reconcile issue #2 for ${key('prod')}: closed.`);
    expect(api.issues.map((i) => i.state)).toEqual(['closed', 'closed']);
  });

  it("state list --all: a section per deployment; state show ADDRESS --deployment NAME: that deployment's state alone", async () => {
    await arranged(['apply', 'infra', '--all', '--auto-approve']);
    const list = await cli(['state', 'list', 'infra', '--all']);
    expect(list.code, list.stderr).toBe(0);
    const sections = list.stdout.split('=== deployment ').slice(1);
    expect(sections.map((s) => s.split(' ')[0])).toEqual([...names]);
    for (const section of sections) expect(section).toMatch(/record\.shop\/api-key +record +\S+/);
    const shown = await cli(['state', 'show', 'project.shop', 'infra', '--deployment', 'prod']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('=== deployment');
    expect(shown.stdout).toContain('shop-prod');
  });

  it('access report --all --format csv: one table, a deployment column, Dana in every account', async () => {
    await arranged(['apply', 'infra', '--all', '--auto-approve']);
    const { code, stdout } = await cli(['access', 'report', 'infra', '--all', '--format', 'csv']);
    expect(code).toBe(0);
    const [header, ...rows] = stdout.trimEnd().split('\r\n');
    expect(header).toMatch(/^deployment,project,record,/);
    const dana = rows.filter((row) => row.includes(',user,dana,'));
    expect(dana.map((row) => row.split(',').slice(0, 3).join(','))).toEqual(names.map((name) => `${name},shop-${name},api-key`));
  });

  it('access offboard dana --all --out DIR, then apply DIR: Dana is off every account', async () => {
    await arranged(['apply', 'infra', '--all', '--auto-approve']);
    const offboard = await cli(['access', 'offboard', 'dana', 'infra', '--all', '--out', 'offboard']);
    expect(offboard.code, offboard.stderr).toBe(0);
    expect(readdirSync(join(runner.workspace, 'offboard')).sort()).toEqual(names.map((name) => `${name}.plan.json`).sort());
    // One summary of the fleet: what the plan takes away in each account.
    expect(offboard.stdout).toMatch(/Deployments:\n(?: {2}(dev|staging|prod|sandbox) +\S+ +ok: 1 share revoked, 1 value rotated\n){4}$/);
    expect(offboard.stderr).toContain('Saved 4 plan(s) to');
    expect(offboard.stderr).toContain('`cplane apply offboard`');
    // A reviewer reads the folder again: one section per deployment, each plan checked by its MAC.
    const shown = await cli(['show', 'offboard']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(
      shown.stdout
        .split('=== deployment ')
        .slice(1)
        .map((s) => s.split(' ')[0]),
    ).toEqual([...names].sort());
    expect(shown.stdout).toContain('Offboarding user dana');
    const applied = await cli(['apply', 'offboard']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Deployments: all 4 applied');
    for (const name of names) {
      const client = clientOf(name);
      const key = (await client.listAll('listRecords', {})).find((r) => r.name === 'api-key')!;
      await client.close();
      expect(key.grants?.user_ids ?? [], name).toEqual([]);
      expect(key.current_version, name).toBe(2);
    }
  });

  it("writer-key --deployment prod prints prod's writer key alone, as without deployments", async () => {
    // The key is the state's: each deployment's state made by an apply.
    await arranged(['apply', 'infra', '--all', '--auto-approve']);
    const { code, stdout, stderr } = await cli(['writer-key', 'infra', '--deployment', 'prod']);
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toBe(`${w.writerKey}\n`);
    // --all: one JSON document, each deployment's own under `result`.
    const all = await cli(['writer-key', 'infra', '--all', '--json']);
    expect(all.code).toBe(0);
    const { deployments } = JSON.parse(all.stdout) as {
      deployments: { deployment: string; account: string; exitCode: number; result: { publicKey: string; account: string } }[];
    };
    expect(deployments.map((d) => [d.deployment, d.account, d.exitCode, d.result.publicKey, d.result.account])).toEqual(
      names.map((name) => [name, accountOf[name], 0, w.writerKey, accountOf[name]]),
    );
  });
});
