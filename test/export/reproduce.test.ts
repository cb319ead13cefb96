// The story of issue 7: an environment built by hand in account A is exported, applied to account B,
// and B then matches A field by field; exporting again is byte-identical; --adopt brings A under management.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/client.js';
import type { ResourceKind } from '../../src/config/types.js';
import type { Plan } from '../../src/plan-model/index.js';
import { exportedDefinitionOf, exportKinds, kindOrder, nestingOrder, definitionOf } from '../../src/providers/index.js';
import { openState } from '../../src/state/index.js';
import type { StateData } from '../../src/state/types.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';
import { runBuiltCplane, runCplane } from './cli.js';

const emulator = withEmulator();
const A = fixtures.accounts[0]!.id;
const B = fixtures.accounts[1]!.id;
const provider = (name: string) => fixtures.providers.find((p) => p.name === name)!.id;

let work: string;
let env: Record<string, string>;
const clients: ApiClient[] = [];
const clientFor = (account: string) => {
  const client = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: account });
  clients.push(client);
  return client;
};

/** Builds a small environment in account A with the API directly, as a person would by hand. */
async function buildEnvironment(api: ApiClient): Promise<void> {
  const checkout = (await api.call('createProject', { body: { accountId: A, name: 'Checkout (EU)', description: 'Checkout services' } }))
    .project_id;
  const search = (await api.call('createProject', { body: { accountId: A, name: 'search', description: '' } })).project_id;
  await api.call('updateProject', { path: { id: search }, body: { name: 'search', description: '', isActive: false } });
  await api.call('createRecord', {
    body: {
      projectId: checkout,
      name: 'Stripe key',
      tags: ['stripe', 'payments'],
      secretDueAt: '2027-03-01T00:00:00.000Z',
      rotationIntervalDays: 90,
    },
  });
  await api.call('createRecord', { body: { projectId: checkout, name: 'webhook-secret', format: 'json' } });
  const old = (await api.call('createRecord', { body: { projectId: search, name: 'old-index-key', tags: ['old'] } })).record_id;
  await api.call('archiveRecord', { path: { id: old }, body: { archived: true } });

  const openai = await api.call('createCredential', {
    body: { providerId: provider('openai'), label: 'OpenAI checkout', baseUrl: 'https://api.openai.com/v1', secret: 'sk-test-openai-0001' },
  });
  const anthropic = await api.call('createCredential', {
    body: { providerId: provider('anthropic'), label: 'anthropic search', secret: 'sk-test-anthropic-0001' },
  });

  const gw1 = await api.call('createGateway', {
    body: {
      projectId: checkout,
      name: 'Checkout gateway',
      slug: 'checkout-eu',
      defaultProviderId: provider('openai'),
      defaultModel: 'gpt-4o-mini',
      credentialIds: [openai.credential_id],
    },
  });
  await api.call('attachGatewayCredential', { path: { id: gw1.gateway_id }, body: { credentialId: anthropic.credential_id } });
  await api.call('updateGatewaySettings', {
    path: { id: gw1.gateway_id },
    body: {
      requestsPerMinute: 600,
      spendLimitUsd: '250.50',
      window: 'month',
      guardrails: { blockPii: true, blockedTerms: ['ssn', 'iban'], maxInputTokens: 8000 },
      cache: { enabled: true, ttlSeconds: 300 },
    },
  });
  await api.call('updateOtelExport', {
    path: { id: gw1.gateway_id },
    body: {
      enabled: true,
      endpoint: 'https://otel.example.com/v1',
      exportMetrics: true,
      exportTraces: false,
      headers: { Authorization: 'Bearer otel-secret-1' },
    },
  });
  await api.call('createGatewayToken', {
    path: { id: gw1.gateway_id },
    body: { name: 'ci', scopes: ['run'], expiresInDays: 30, allowedModels: ['gpt-4o-mini'], rateLimitPerMin: 60 },
  });
  await api.call('createGatewayToken', { path: { id: gw1.gateway_id }, body: { name: 'Log reader', scopes: ['read_logs'] } });
  const revoked = await api.call('createGatewayToken', { path: { id: gw1.gateway_id }, body: { name: 'retired', scopes: ['run'] } });
  await api.call('revokeGatewayToken', { path: { id: gw1.gateway_id, tokenId: revoked.token_id } });

  const gw2 = await api.call('createGateway', {
    body: {
      projectId: search,
      name: 'Search',
      slug: 'search',
      defaultProviderId: provider('anthropic'),
      defaultModel: 'claude-3-5-haiku',
      credentialIds: [anthropic.credential_id],
    },
  });
  await api.call('updateGatewaySettings', { path: { id: gw2.gateway_id }, body: { tokensPerMinute: 100000, window: 'hour' } });
  await api.call('createGatewayToken', {
    path: { id: gw2.gateway_id },
    body: { name: 'indexer', scopes: ['run', 'read_logs'], expiresInDays: 365, rateLimitPerMin: 120 },
  });
}

/** Everything the export reproduces, by names only, as the API shows it: ids and timestamps left out. */
async function snapshot(api: ApiClient, account: string, projectNames: string[]) {
  const providers = await api.call('listProviders', {});
  const providerName = (id: string) => providers.find((p) => p.provider_id === id)?.name;
  const projects = (await api.listAll('listProjects', { query: { accountId: account } })).filter((p) => projectNames.includes(p.name));
  const records = await api.listAll('listRecords', { query: { accountId: account } });
  const credentials = await api.listAll('listCredentials', {});
  const label = (id: string) => credentials.find((c) => c.credential_id === id)?.label;
  const gateways = (await api.listAll('listGateways', {})).filter((g) => projects.some((p) => p.project_id === g.project_id));
  const out = {
    projects: projects.map((p) => ({
      name: p.name,
      description: p.description,
      active: p.is_active,
      records: records
        .filter((r) => r.project_id === p.project_id)
        .map((r) => ({
          name: r.name,
          tags: r.tags,
          secretDueAt: r.secret_due_at,
          rotationIntervalDays: r.rotation_interval_days,
          format: r.format,
        }))
        .sort((x, y) => x.name.localeCompare(y.name)),
    })),
    credentials: [] as unknown[],
    gateways: [] as unknown[],
  };
  const used = new Set(gateways.flatMap((g) => g.credential_ids));
  out.credentials = credentials
    .filter((c) => used.has(c.credential_id))
    .map((c) => ({ label: c.label, provider: providerName(c.provider_id), baseUrl: c.base_url }));
  for (const g of gateways) {
    const otel = await api.call('getOtelExport', { path: { id: g.gateway_id } });
    const tokens = (await api.listAll('listGatewayTokens', { path: { id: g.gateway_id } })).filter((t) => !t.revoked_at);
    out.gateways.push({
      project: projects.find((p) => p.project_id === g.project_id)?.name,
      name: g.name,
      slug: g.slug,
      defaultProvider: providerName(g.default_provider_id),
      defaultModel: g.default_model,
      settings: g.settings,
      credentials: g.credential_ids.map(label).sort(),
      otel: {
        enabled: otel.enabled,
        endpoint: otel.endpoint,
        exportMetrics: otel.exportMetrics,
        exportTraces: otel.exportTraces,
        headerNames: otel.headerNames,
      },
      tokens: tokens
        .map((t) => ({
          name: t.name,
          scopes: t.scopes,
          allowedModels: t.allowed_models,
          rateLimitPerMin: t.rate_limit_per_min,
          lifetimeDays: t.expires_at === null ? null : Math.round((Date.parse(t.expires_at) - Date.parse(t.created_at)) / 86_400_000),
        }))
        .sort((x, y) => x.name.localeCompare(y.name)),
    });
  }
  const byName = (x: unknown, y: unknown) => JSON.stringify(x).localeCompare(JSON.stringify(y));
  out.projects.sort(byName);
  out.credentials.sort(byName);
  out.gateways.sort(byName);
  return out;
}

/** What export writes of account A, by kind: the objects built above and the seeded ones. Every other kind export reads has none there. */
const exportedOfA: Partial<Record<ResourceKind, number>> = {
  project: 3,
  record: 4,
  credential: 4,
  gateway: 3,
  otel_export: 1,
  gateway_token: 5,
};
const exportedInA = Object.values(exportedOfA).reduce((sum: number, n) => sum + (n ?? 0), 0);
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The report's counts, from the registry: each kind export reads (never one known only from state, which has
 * nothing to read) in the order a configuration nests them, with its noun. A kind added to the registry is
 * counted here too (0 in this account), so the expected line never needs writing out again.
 */
function exportedCounts(): string {
  return nestingOrder
    .filter((kind) => exportKinds.includes(kind))
    .map((kind) => {
      const { export: mapping, config } = exportedDefinitionOf(kind);
      return plural(exportedOfA[kind] ?? 0, mapping.noun ?? config.noun);
    })
    .join(', ');
}

async function readFolder(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.yaml')).sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), 'utf8')] as const)));
}

/** The placeholders the export asks for, each given a fake secret long enough for the emulator's key check. */
function placeholderEnv(stdout: string): Record<string, string> {
  const names = [...stdout.matchAll(/^ {2}(CPLANE_[A-Z0-9_]+) /gm)].map((m) => m[1]!);
  return Object.fromEntries(names.map((name) => [name, `fake-${name.toLowerCase()}-value`]));
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cplane-export-e2e-'));
  env = {
    CPLANE_BASE_URL: emulator().url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    XDG_CONFIG_HOME: join(work, 'config-home'),
    CPLANE_STATE_KEY: Buffer.alloc(32, 7).toString('base64'),
  };
  await buildEnvironment(clientFor(A));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await rm(work, { recursive: true, force: true });
});

describe('cplane export, then apply to another account', () => {
  let exported: Record<string, string>;
  let secrets: Record<string, string>;

  it('writes the folder and says what it skipped and which secrets to set', async () => {
    // The built binary, as a user runs it; the later steps of the story run in-process.
    const result = await runBuiltCplane(['export', '--account', A, '--out', 'env'], { cwd: work, env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Exported account ${A} to env: ${exportedCounts()} in 5 files.`);
    // The counts of the kinds built above, in the order a configuration nests them.
    expect(exportedCounts()).toMatch(/^3 projects, 4 records, .*4 credentials, 3 gateways, 1 OTel export, 5 tokens/);
    // A kind known only from state is never read, and one without an export mapping (a record's owner) never
    // written, so neither is exported nor counted; every other kind is.
    const unexported = kindOrder.filter((kind) => {
      const d = definitionOf(kind);
      return d.observation === 'state' || !d.export;
    });
    expect([...exportKinds]).toEqual(kindOrder.filter((kind) => !unexported.includes(kind)));
    const counts = result.stdout.split('\n')[0]!;
    for (const kind of unexported) expect(counts).not.toContain(definitionOf(kind).config.noun);
    expect(result.stdout).toContain('Skipped (not exported): 1 archived project, 1 archived record, 1 revoked token.');
    expect(result.stdout).toContain(
      '  CPLANE_OTEL_CHECKOUT_EU_AUTHORIZATION  the Authorization header of the OTel export of gateway checkout-eu',
    );
    exported = await readFolder(join(work, 'env'));
    expect(Object.keys(exported)).toEqual([
      'credentials.yaml',
      'main.yaml',
      'project-checkout-eu.yaml',
      'project-payments.yaml',
      'project-search.yaml',
    ]);
    expect(Object.values(exported).join('\n')).not.toContain(A);
    secrets = placeholderEnv(result.stdout);
    expect(Object.keys(secrets).sort()).toEqual([
      'CPLANE_OTEL_CHECKOUT_EU_AUTHORIZATION',
      'CPLANE_SECRET_ANTHROPIC_PROD',
      'CPLANE_SECRET_ANTHROPIC_SEARCH',
      'CPLANE_SECRET_OPENAI_CHECKOUT',
      'CPLANE_SECRET_OPENAI_PROD',
    ]);
  });

  it('applies unchanged to account B, after which a plan in B has no changes, but names the records without a value', async () => {
    // The loader still asks for the `account` variable even when --account gives the account (reported to the lead).
    const target = ['--account', B, '--var', `account=${B}`];
    const apply = await runCplane(['apply', 'env', ...target, '--auto-approve', '--no-input'], { cwd: work, env: { ...env, ...secrets } });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    const plan = await runCplane(['plan', 'env', ...target], { cwd: work, env: { ...env, ...secrets } });
    expect(plan.stderr).toBe('');
    // Values are never exported: the copies are empty, and the plan says so rather than a clean "No changes".
    expect(plan.stdout).toContain(
      [
        '  ! record.checkout-eu/stripe-key: no value',
        '  ! record.checkout-eu/webhook-secret: no value',
        '  ! record.payments/database-password: no value',
        '  ! record.payments/stripe-api-key: no value\n',
      ].join('\n'),
    );
    expect(plan.stdout).toContain('No changes. The plan has 4 warnings (listed above).');
    expect(plan.code).toBe(0);
  });

  it('leaves B with the same projects, records, credentials, gateways, OTel settings and tokens as A', async () => {
    const names = ['Checkout (EU)', 'search', 'payments'];
    const inA = await snapshot(clientFor(A), A, names);
    const inB = await snapshot(clientFor(B), B, names);
    expect(inA.projects).toHaveLength(3);
    expect(inA.gateways).toHaveLength(3);
    expect(inB).toEqual(inA);
  });

  it('exports an unchanged account again byte for byte', async () => {
    const again = await runCplane(['export', '--account', A, '--out', 'env'], { cwd: work, env });
    expect(again.code).toBe(0);
    expect(await readFolder(join(work, 'env'))).toEqual(exported);
  });
});

describe('cplane export --adopt', () => {
  let secrets: Record<string, string>;

  it('links every exported address to its live object in the state of account A', async () => {
    const adopt = await runCplane(['export', '--account', A, '--out', 'managed', '--adopt'], { cwd: work, env });
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).toContain(`Adopted ${exportedInA} addresses into the state of account ${A}`);
    secrets = placeholderEnv(adopt.stdout);
    const state = JSON.parse(await readFile(join(work, 'managed', '.cplane', A, 'state.json'), 'utf8')) as StateData;
    expect(state.account).toBe(A);
    expect(Object.keys(state.resources)).toHaveLength(exportedInA);
    expect(state.resources['gateway.payments']).toMatchObject({
      kind: 'gateway',
      id: fixtures.gateways[0]!.id,
      adoptedBy: 'export',
      fingerprints: {},
    });
    expect(state.resources['credential.openai-prod']).toMatchObject({
      id: fixtures.credentials[0]!.id,
      inputs: { provider: 'openai', label: 'openai-prod', baseUrl: null },
    });
  });

  it('leaves a plan in A with no changes at all, without the secrets set', async () => {
    const plan = await runCplane(['plan', 'managed', '--account', A], { cwd: work, env });
    expect(plan.stderr).toBe('');
    // The two records made by hand above never had a value; the seeded ones have one.
    expect(plan.stdout).toContain('No changes. The plan has 2 warnings (listed above).');
    expect(plan.stdout).toContain('  ! record.checkout-eu/stripe-key: no value\n  ! record.checkout-eu/webhook-secret: no value\n');
  });

  it('takes the write-only values export could not read as they are live, even with the secrets set', async () => {
    const plan = await runCplane(['plan', 'managed', '--account', A, '--json'], { cwd: work, env: { ...env, ...secrets } });
    expect(plan.stderr).toBe('');
    expect((JSON.parse(plan.stdout) as Plan).steps).toEqual([]);
  });

  it('keeps the fingerprints the state already had when the account is exported and adopted again', async () => {
    // As an apply would have: the secret of one credential is known to the state.
    const before = await openState({ configDir: join(work, 'managed'), account: A, env, command: 'test', lock: true });
    const known = before.crypto.fingerprint('credential.openai-prod', 'secret', secrets.CPLANE_SECRET_OPENAI_PROD!);
    await before.update((draft) => {
      const entry = draft.resources['credential.openai-prod']!;
      entry.fingerprints = { secret: known };
      delete entry.adoptedBy;
    });
    await before.close();

    const again = await runCplane(['export', '--account', A, '--out', 'managed', '--adopt'], { cwd: work, env });
    expect(again.code).toBe(0);
    const state = JSON.parse(await readFile(join(work, 'managed', '.cplane', A, 'state.json'), 'utf8')) as StateData;
    expect(state.lineage).toBe(before.data.lineage);
    expect(state.resources['credential.openai-prod']).toMatchObject({ fingerprints: { secret: known } });
    expect(state.resources['credential.openai-prod']!.adoptedBy).toBeUndefined();
    expect(state.resources['credential.anthropic-prod']).toMatchObject({ fingerprints: {}, adoptedBy: 'export' });

    const plan = await runCplane(['plan', 'managed', '--account', A, '--var', `account=${A}`, '--json'], {
      cwd: work,
      env: { ...env, ...secrets },
    });
    expect(plan.stderr).toBe('');
    expect((JSON.parse(plan.stdout) as Plan).steps.map((s) => s.address)).not.toContain('credential.openai-prod');
  });
});

describe('bad input', () => {
  it('refuses an account the token cannot use, before reading anything in it', async () => {
    const other = fixtures.accounts[2]!.id;
    const result = await runCplane(['export', '--account', other, '--out', 'nope'], { cwd: work, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Error: Account ${other} is not accessible with this token; nothing was read or written.\n` +
        `Accounts this token can use: ${A} (Acme Production), ${B} (Acme Staging).\n`,
    );
    expect(await readdir(work)).not.toContain('nope');
  });

  it('refuses an unknown --project name and lists the projects', async () => {
    const result = await runCplane(['export', '--account', A, '--project', 'Checkout', '--out', 'nope'], { cwd: work, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: No project named "Checkout" in this account.\nProjects: Checkout (EU), payments, search. --project takes a project\'s name.\n',
    );
    expect(await readdir(work)).not.toContain('nope');
  });

  it('refuses to adopt while an interrupted apply still has writes in the journal, leaving the folder as it was', async () => {
    const first = await runCplane(['export', '--account', A, '--project', 'search', '--out', 'interrupted', '--adopt'], { cwd: work, env });
    expect(first.code).toBe(0);
    const store = await openState({ configDir: join(work, 'interrupted'), account: A, env, command: 'test', lock: true });
    await store.update((draft) => {
      draft.journal.push({
        id: '00000000-0000-4000-8000-000000000001',
        address: 'project.search',
        stepId: 'project.search',
        operation: 'updateProject',
        pathParams: { id: 'x' },
        idempotencyKey: '00000000-0000-4000-8000-000000000002',
        body: null,
        createdAt: new Date().toISOString(),
      });
    });
    await store.close();
    const before = await readFolder(join(work, 'interrupted'));

    const again = await runCplane(['export', '--account', A, '--out', 'interrupted', '--adopt'], { cwd: work, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `Error: The state ${join(work, 'interrupted', '.cplane', A, 'state.json')} has 1 write(s) in its journal from an interrupted apply; nothing was exported or adopted.\n` +
        `Run \`cplane apply ${join(work, 'interrupted')}\` to finish them, then export with --adopt again.\n`,
    );
    expect(await readFolder(join(work, 'interrupted'))).toEqual(before);
  });

  it('exports only the named project, its gateways and the credentials they use', async () => {
    const result = await runCplane(['export', '--account', A, '--project', 'search', '--out', 'search-only'], { cwd: work, env });
    expect(result.code).toBe(0);
    const files = await readFolder(join(work, 'search-only'));
    expect(Object.keys(files)).toEqual(['credentials.yaml', 'main.yaml', 'project-search.yaml']);
    expect(files['credentials.yaml']).toContain('anthropic-search:');
    expect(files['credentials.yaml']).not.toContain('openai');
  });
});
