// `deployments:`: one configuration, many accounts. Each deployment loads with its own account, variables and
// variable files; the checks across deployments are errors at their file:line:col.
import { describe, expect, it } from 'vitest';
import { deploymentWaves } from '../../src/config/index.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { load } from './helpers.js';

const A1 = '0a000000-0000-4000-8000-000000000001';
const A2 = '0a000000-0000-4000-8000-000000000002';
const A3 = '0a000000-0000-4000-8000-000000000003';

const CONFIG = `version: 1
variables:
  env: { type: string }
  limit: { type: integer, default: 10 }
  ops_id: { type: string }
  ops_key: { type: string }
deployments:
  staging: { account: ${A2}, variables: { env: staging, ops_id: 0d000000-0000-4000-8000-000000000003, ops_key: "${printableKeyPair('0d000000-0000-4000-8000-000000000003').publicKey}" } }
  prod-eu:
    account: ${A1}
    variables: { env: prod, limit: 99, ops_id: 0d000000-0000-4000-8000-000000000001, ops_key: "${printableKeyPair('0d000000-0000-4000-8000-000000000001').publicKey}" }
    after: [staging]
    autoApprove: "plan.remove == 0"
  prod-us: { account: ${A3}, varFiles: [vars/prod-us.yaml], after: [staging] }
directory:
  groups:
    ops: { id: "\${var.ops_id}", publicKey: "\${var.ops_key}" }
projects:
  app:
    description: \${var.env} app (\${var.limit})
`;
const US = `env: prod-us\nops_id: 0d000000-0000-4000-8000-000000000004\nops_key: "${printableKeyPair('0d000000-0000-4000-8000-000000000004').publicKey}"\n`;

describe('deployments', () => {
  it('loads each deployment with its account, variables, variable files and directory entries', async () => {
    const files = { 'main.yaml': CONFIG, 'vars/prod-us.yaml': US };
    const discovery = await load(files, { allowUnsetVariables: true });
    expect(discovery.diagnostics).toEqual([]);
    expect(discovery.deployments?.map((d) => [d.name, d.account, d.workspace, d.after, d.autoApprove?.rule])).toEqual([
      ['staging', A2, 'default', [], undefined],
      ['prod-eu', A1, 'default', ['staging'], 'plan.remove == 0'],
      ['prod-us', A3, 'default', ['staging'], undefined],
    ]);
    const eu = await load(files, { deployment: 'prod-eu', env: { CPLANE_ACCOUNT: A3 } });
    expect(eu.diagnostics).toEqual([]);
    expect(eu.desired?.account).toBe(A1);
    expect(eu.desired?.resources.find((r) => r.address === 'project.app')?.attributes.description).toBe('prod app (99)');
    expect(eu.desired?.directory?.groups.ops?.id).toBe('0d000000-0000-4000-8000-000000000001');
    const us = await load(files, { deployment: 'prod-us' });
    expect(us.diagnostics).toEqual([]);
    expect(us.desired?.account).toBe(A3);
    expect(us.desired?.resources.find((r) => r.address === 'project.app')?.attributes.description).toBe('prod-us app (10)');
    expect(us.desired?.directory?.groups.ops?.id).toBe('0d000000-0000-4000-8000-000000000004');
  });

  it("lets a deployment's values win over --var, and reports a wrong value at its line", async () => {
    const files = { 'main.yaml': CONFIG, 'vars/prod-us.yaml': US };
    const staging = await load(files, {
      deployment: 'staging',
      variables: [
        { name: 'env', value: 'from-flag' },
        { name: 'limit', value: '5' },
      ],
    });
    expect(staging.desired?.resources.find((r) => r.address === 'project.app')?.attributes.description).toBe('staging app (5)');
    const wrong = await load(
      { 'main.yaml': CONFIG.replace('limit: 99', 'limit: lots'), 'vars/prod-us.yaml': US },
      { deployment: 'prod-eu' },
    );
    expect(wrong.diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'invalid_variable_value',
        'Variable "limit" must be an integer; deployment prod-eu gives "lots"',
        { file: 'main.yaml', line: 11, col: 36 },
      ],
    ]);
  });

  it('refuses an unknown deployment name, with a suggestion', async () => {
    const { diagnostics } = await load({ 'main.yaml': CONFIG, 'vars/prod-us.yaml': US }, { deployment: 'prod_eu' });
    expect(diagnostics.map((d) => [d.code, d.summary, d.detail])).toEqual([
      [
        'unknown_deployment',
        'The configuration has no deployment "prod_eu"; did you mean "prod-eu"?',
        'Its deployments: staging, prod-eu, prod-us.',
      ],
    ]);
  });

  it('refuses an unknown deployment in after, with a suggestion, at the name', async () => {
    const { diagnostics } = await load(
      { 'main.yaml': `version: 1\ndeployments:\n  staging: { account: ${A2} }\n  prod:\n    account: ${A1}\n    after: [stagin]\n` },
      { allowUnsetVariables: true },
    );
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'unknown_deployment',
        'The deployment "prod" comes after "stagin", which is not a deployment; did you mean "staging"?',
        { file: 'main.yaml', line: 6, col: 13 },
      ],
    ]);
  });

  it('refuses a cycle of after, naming its path', async () => {
    const { diagnostics } = await load(
      {
        'main.yaml': `version: 1\ndeployments:\n  a: { account: ${A1}, after: [c] }\n  b: { account: ${A2}, after: [a] }\n  c: { account: ${A3}, after: [b] }\n  d: { account: ${A3}, workspace: d, after: [d] }\n`,
      },
      { allowUnsetVariables: true },
    );
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'deployment_cycle',
        'The deployments wait for each other in a cycle: a after c after b after a',
        { file: 'main.yaml', line: 3, col: 55 },
      ],
      ['deployment_cycle', 'The deployments wait for each other in a cycle: d after d', { file: 'main.yaml', line: 6, col: 69 }],
    ]);
  });

  it('refuses two deployments on the same account and workspace, at the second account', async () => {
    const { diagnostics } = await load(
      {
        'main.yaml': `version: 1\ndeployments:\n  eu: { account: ${A1} }\n  eu2: { account: ${A1}, workspace: eu2 }\n  us:\n    account: ${A1}\n`,
      },
      { allowUnsetVariables: true },
    );
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'duplicate_deployment_target',
        `The deployments "eu" (main.yaml:3:3) and "us" are both on account ${A1}, workspace default: they would share one state`,
        { file: 'main.yaml', line: 6, col: 14 },
      ],
    ]);
  });

  it('refuses an account: beside deployments:, at the account, in any file', async () => {
    const { diagnostics } = await load(
      {
        'a.yaml': `version: 1\ndeployments:\n  eu: { account: ${A1} }\n`,
        'b.yaml': `account: ${A2}\n`,
      },
      { allowUnsetVariables: true },
    );
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'account_beside_deployments',
        'account: cannot be given beside deployments: (a.yaml:2:1): each deployment names its own account',
        { file: 'b.yaml', line: 1, col: 1 },
      ],
    ]);
  });

  it('refuses ${...} in a deployment: it is what gives the variables their values', async () => {
    const { diagnostics } = await load(
      { 'main.yaml': `version: 1\nvariables:\n  a: {}\ndeployments:\n  eu: { account: "\${var.a}" }\n` },
      { allowUnsetVariables: true },
    );
    expect(diagnostics.map((d) => [d.code, d.range?.line])).toEqual([['deployment_interpolation', 5]]);
  });

  it('refuses a badly shaped deployment through the schema', async () => {
    const { diagnostics } = await load(
      { 'main.yaml': `version: 1\ndeployments:\n  eu: { acount: ${A1} }\n` },
      { allowUnsetVariables: true },
    );
    expect(diagnostics.map((d) => d.code)).toContain('unknown_key');
  });

  it('orders deployments in waves of after', () => {
    const waves = deploymentWaves([
      { name: 'prod-eu', after: ['staging'] },
      { name: 'staging', after: [] },
      { name: 'prod-us', after: ['staging'] },
      { name: 'canary', after: ['prod-eu', 'prod-us'] },
    ]);
    expect(waves.map((w) => w.map((d) => d.name))).toEqual([['staging'], ['prod-eu', 'prod-us'], ['canary']]);
    // A deployment not chosen is not waited for.
    const alone: { name: string; after: string[] }[] = [{ name: 'prod-eu', after: ['staging'] }];
    expect(deploymentWaves(alone).map((w: { name: string }[]) => w.map((d) => d.name))).toEqual([['prod-eu']]);
  });
});

// `export --as-deployment` writes `<fill in: …>` where it could not vouch for a value: refused where it stands, for the
// deployment loaded (or every one, without a choice), and never passed on as the variable's value.
describe('a placeholder export left', () => {
  const files = {
    'main.yaml': CONFIG.replace('ops_key: "', 'ops_key: "<fill in: the public key of group ops>", was: "').replace(
      ', was: "' + printableKeyPair('0d000000-0000-4000-8000-000000000003').publicKey + '"',
      '',
    ),
    'vars/prod-us.yaml': US,
  };
  it('is an error at its line for its deployment and for validate, saying what to give, and none for the others', async () => {
    const staging = await load(files, { deployment: 'staging' });
    const fillIns = staging.diagnostics.filter((d) => d.code === 'deployment_fill_in');
    const lines = files['main.yaml'].split('\n');
    const line = lines.findIndex((l) => l.includes('<fill in'));
    expect(fillIns.map((d) => [d.range?.line, d.range?.col, d.summary])).toEqual([
      [
        line + 1,
        lines[line]!.indexOf('<fill in') + 1,
        'deployments.staging.variables.ops_key is still the placeholder `cplane export --as-deployment` wrote: give the public key of group ops',
      ],
    ]);
    // The variable has no value (the placeholder is never a key), and that is said once, by the placeholder's error.
    expect(staging.diagnostics.map((d) => d.code)).toEqual(['deployment_fill_in']);
    expect((await load(files, { allowUnsetVariables: true })).diagnostics.map((d) => d.code)).toEqual(['deployment_fill_in']);
    expect((await load(files, { deployment: 'prod-eu' })).diagnostics).toEqual([]);
  });
});
