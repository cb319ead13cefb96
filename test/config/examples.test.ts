/**
 * Every example folder is a valid configuration, with the variables its
 * README / demo gives it.
 */
import { readdirSync } from 'node:fs';
import { expect, test } from 'vitest';
import { loadConfiguration } from '../../src/providers/index.js';

const ACCOUNT = '00000000-0000-4000-8000-000000000001';

test('every example folder is covered here', () => {
  // examples/sdk is a program, not a configuration: test/e2e/read-secret.test.ts and reader-manifest.test.ts run it;
  // examples/containers holds Dockerfile recipes, which test/e2e/python-reader.test.ts runs.
  expect(readdirSync('examples').sort()).toEqual(['containers', 'multi-env', 'quickstart', 'sdk', 'teams']);
});

test('quickstart: one project with two records, a credential, a gateway with OTel export and two tokens', async () => {
  const { desired, diagnostics } = await loadConfiguration('examples/quickstart', {
    variables: [{ name: 'account', value: ACCOUNT }],
    env: {},
  });
  expect(diagnostics).toEqual([]);
  expect(desired?.account).toBe(ACCOUNT);
  expect(desired?.files).toEqual(['main.yaml']);
  expect(desired?.resources.map((r) => r.address)).toEqual([
    'project.payments',
    'record.payments/stripe-key',
    'record.payments/webhook-signing-secret',
    'credential.openai-prod',
    'gateway.prod',
    'otel_export.prod',
    'gateway_token.prod/ci',
    'gateway_token.prod/dashboards',
  ]);
  const otel = desired?.resources.find((r) => r.kind === 'otel_export');
  expect(otel?.secrets).toEqual({ 'headers.Authorization': { env: 'OTEL_AUTH' } });
});

test('quickstart: the secrets it names are exactly those demo.env provides', async () => {
  const { readFileSync } = await import('node:fs');
  const provided = readFileSync('examples/quickstart/demo.env', 'utf8')
    .split('\n')
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => l.split('=')[0])
    .sort();
  const { desired } = await loadConfiguration('examples/quickstart', { variables: [{ name: 'account', value: ACCOUNT }], env: {} });
  const named = desired!.resources
    .flatMap((r) => Object.values(r.secrets))
    .flatMap((s) => ('env' in s ? [s.env] : []))
    .sort();
  expect(named).toEqual(provided);
});

test.each([
  ['staging', 'staging', '0a000000-0000-4000-8000-000000001001', 60, 7, false, 'eu'],
  ['prod-eu', 'prod', '0a000000-0000-4000-8000-000000001002', 6000, 30, true, 'eu'],
  ['prod-us', 'prod', '0a000000-0000-4000-8000-000000001003', 6000, 30, true, 'us'],
])('multi-env: deployment %s', async (deployment, env, account, requestsPerMinute, expiresInDays, preventDestroy, region) => {
  const { desired, diagnostics, deployments } = await loadConfiguration('examples/multi-env', { deployment, env: {} });
  expect(diagnostics).toEqual([]);
  expect(deployments?.map((d) => [d.name, d.after])).toEqual([
    ['staging', []],
    ['prod-eu', ['staging']],
    ['prod-us', ['staging']],
  ]);
  expect(desired?.account).toBe(account);
  const byAddress = new Map(desired!.resources.map((r) => [r.address, r]));
  expect(byAddress.get('project.app')).toMatchObject({
    attributes: { name: `app-${env}`, description: `Application services (${env}, ${region})` },
    lifecycle: { preventDestroy },
  });
  expect(byAddress.get('gateway.main')?.attributes).toMatchObject({ slug: `app-${env}`, settings: { requestsPerMinute, window: 'day' } });
  expect(byAddress.get('gateway_token.main/ci')?.attributes).toMatchObject({ expiresInDays });
});

test('teams: one gateway per team from a map variable, one credential per vendor from a list, a sandbox module called twice; a var file adds a team', async () => {
  const { desired, diagnostics } = await loadConfiguration('examples/teams', { variables: [{ name: 'account', value: ACCOUNT }], env: {} });
  expect(diagnostics).toEqual([]);
  expect(desired?.files).toEqual(['gateways.yaml', 'main.yaml', 'sandboxes.yaml', 'modules/sandbox/sandbox.yaml']);
  expect(desired?.resources.map((r) => r.address)).toEqual([
    'project.core',
    'credential.vendor[openai]',
    'credential.vendor[mistral]',
    'module.alice.project.sandbox',
    'module.bob.project.sandbox',
    'gateway.team[payments]',
    'otel_export.team[payments]',
    'gateway_token.team[payments]/ci',
    'gateway.team[search]',
    'otel_export.team[search]',
    'gateway_token.team[search]/ci',
    'gateway.team[support]',
    'otel_export.team[support]',
    'gateway_token.team[support]/ci',
    'module.alice.gateway.main',
    'module.bob.gateway.main',
  ]);
  // The module's gateway is in the module's own project, with the caller's credential given as an input.
  expect(desired?.resources.find((r) => r.address === 'module.bob.gateway.main')?.attributes).toMatchObject({
    project: 'module.bob.sandbox',
    slug: 'sandbox-bob',
    defaultProvider: 'mistral',
    credentials: ['vendor[mistral]'],
    settings: { requestsPerMinute: 10 },
  });
  expect(desired?.resources.find((r) => r.address === 'gateway.team[search]')?.attributes).toMatchObject({
    name: 'search gateway',
    slug: 'gw-search',
    defaultProvider: 'mistral',
    defaultModel: 'mistral-small',
    credentials: ['vendor[mistral]'],
    settings: { requestsPerMinute: 100, window: 'day' },
  });
  const more = await loadConfiguration('examples/teams', {
    variables: [{ name: 'account', value: ACCOUNT }, { file: 'examples/teams/vars/more-teams.yaml' }],
    env: {},
  });
  expect(more.diagnostics).toEqual([]);
  expect(more.desired?.resources.filter((r) => r.kind === 'gateway').map((r) => r.address)).toEqual([
    'gateway.team[payments]',
    'gateway.team[search]',
    'gateway.team[support]',
    'gateway.team[billing]',
    'module.alice.gateway.main',
    'module.bob.gateway.main',
  ]);
});
