/**
 * What the loader hands the planner: addresses, defaults, dependency edges,
 * secret references (never values) and source positions.
 */
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BASE, load } from './helpers.js';

test('defaults are filled and dependency edges implied', async () => {
  const { desired, diagnostics } = await load({
    'main.yaml': `${BASE}    otelExport: { endpoint: https://otel.example.com }\n    tokens:\n      ci: { scopes: [run] }\n`,
  });
  expect(diagnostics).toEqual([]);
  const byAddress = new Map(desired!.resources.map((r) => [r.address, r]));
  expect(byAddress.get('project.payments')).toMatchObject({
    kind: 'project',
    localName: 'payments',
    attributes: { name: 'payments', description: 'Payment services', active: true },
    lifecycle: { preventDestroy: false, ignoreChanges: [] },
    dependsOn: [],
    secrets: {},
    source: { file: 'main.yaml', line: 3, col: 3 },
  });
  expect(byAddress.get('record.payments/stripe-key')).toMatchObject({
    localName: 'stripe-key',
    attributes: { project: 'payments', name: 'stripe-key', rotationIntervalDays: 90 },
    dependsOn: ['project.payments'],
  });
  expect(byAddress.get('record.payments/stripe-key')?.attributes).not.toHaveProperty('tags');
  expect(byAddress.get('credential.openai-prod')).toMatchObject({
    attributes: { provider: 'openai', label: 'openai-prod', baseUrl: null },
    secrets: { secret: { env: 'OPENAI_API_KEY' } },
  });
  expect(byAddress.get('gateway.prod')).toMatchObject({
    attributes: {
      project: 'payments',
      name: 'prod',
      slug: 'prod',
      defaultProvider: 'openai',
      defaultModel: 'gpt-4o-mini',
      credentials: ['openai-prod'],
    },
    dependsOn: ['project.payments', 'credential.openai-prod'],
  });
  expect(byAddress.get('gateway.prod')?.attributes).not.toHaveProperty('settings');
  expect(byAddress.get('otel_export.prod')).toMatchObject({
    localName: 'prod',
    attributes: {
      gateway: 'prod',
      enabled: true,
      endpoint: 'https://otel.example.com',
      exportMetrics: true,
      exportTraces: true,
      headerNames: [],
    },
    dependsOn: ['gateway.prod'],
  });
  expect(byAddress.get('gateway_token.prod/ci')).toMatchObject({
    localName: 'ci',
    attributes: {
      gateway: 'prod',
      name: 'ci',
      scopes: ['run'],
      expiresInDays: null,
      allowedModels: [],
      rateLimitPerMin: null,
      serviceAccount: null,
      spendLimit: null,
      spendWindow: null,
    },
    dependsOn: ['gateway.prod'],
  });
});

test('a file secret source becomes an absolute path next to its YAML file, and is not read', async () => {
  const { dir, desired } = await load({ 'main.yaml': BASE.replace('{ env: OPENAI_API_KEY }', '{ file: ./keys/openai.txt }') });
  const credential = desired!.resources.find((r) => r.kind === 'credential');
  expect(credential?.secrets).toEqual({ secret: { file: join(dir, 'keys/openai.txt') } });
});

test('only the given settings keys are managed', async () => {
  const { desired } = await load({ 'main.yaml': `${BASE}    settings: { cache: { ttlSeconds: 60 }, spendLimitUsd: "100.00" }\n` });
  expect(desired!.resources.find((r) => r.kind === 'gateway')?.attributes).toMatchObject({
    settings: { cache: { ttlSeconds: 60 }, spendLimitUsd: '100.00' },
  });
});

test('resources may be spread over files, and the files are listed sorted', async () => {
  const [projects, rest] = BASE.split('credentials:\n');
  const { desired, diagnostics } = await load({
    'b-projects.yaml': projects!,
    'a-rest.yaml': `credentials:\n${rest}`,
    'notes.txt': 'ignored',
    'sub/x.yaml': 'not: read',
  });
  expect(diagnostics).toEqual([]);
  expect(desired?.files).toEqual(['a-rest.yaml', 'b-projects.yaml']);
  expect(desired?.resources).toHaveLength(4);
});

test('the default provider defaults to the provider of the first credential; an id is not checked', async () => {
  const id = '3f6c2a1e-8b9d-4c7e-a5f4-2b1d0e9c8a7f';
  const { desired, diagnostics } = await load({
    'main.yaml': BASE.replace('    defaultModel', `    defaultProvider: ${id}\n    defaultModel`),
  });
  expect(diagnostics).toEqual([]);
  expect(desired!.resources.find((r) => r.kind === 'gateway')?.attributes).toMatchObject({ defaultProvider: id });
});

test('account: from the configuration, else --account, else CPLANE_ACCOUNT; one that contradicts the configuration is an error naming both', async () => {
  const files = { 'main.yaml': `account: from-config\n${BASE}` };
  expect((await load(files)).desired?.account).toBe('from-config');
  expect((await load(files, { env: { CPLANE_ACCOUNT: 'from-config' } })).desired?.account).toBe('from-config');
  const byEnv = await load(files, { env: { CPLANE_ACCOUNT: 'from-env' } });
  expect(byEnv.desired).toBeUndefined();
  expect(byEnv.diagnostics.map((d) => [d.code, d.summary, d.range?.line])).toEqual([
    ['account_mismatch', "CPLANE_ACCOUNT is from-env, but the configuration's account is from-config", 1],
  ]);
  const byFlag = await load(files, { env: { CPLANE_ACCOUNT: 'from-config' }, account: 'from-flag' });
  expect(byFlag.diagnostics.map((d) => d.summary)).toEqual(["--account is from-flag, but the configuration's account is from-config"]);
  const none = { 'main.yaml': BASE };
  expect((await load(none, { env: { CPLANE_ACCOUNT: 'from-env' } })).desired?.account).toBe('from-env');
  expect((await load(none, { env: { CPLANE_ACCOUNT: 'from-env' }, account: 'from-flag' })).desired?.account).toBe('from-flag');
});

test('explicit dependsOn adds edges', async () => {
  const { desired } = await load({ 'main.yaml': BASE.replace('rotationIntervalDays: 90', 'dependsOn: [credential.openai-prod]') });
  expect(desired!.resources.find((r) => r.kind === 'record')?.dependsOn).toEqual(['project.payments', 'credential.openai-prod']);
});
