// Providers report facts about differences and return writes; these tests pin both for each kind without a network.
import { describe, expect, it } from 'vitest';
import type { GatewayTokenT, ProjectT, RecordMetaT } from '../../src/api/shapes.js';
import {
  gatewayKind,
  gatewayTokenKind,
  otelExportKind,
  projectKind,
  recordKind,
  credentialKind,
  serviceAccounts,
  type LookupResults,
} from '../../src/providers/index.js';
import { desired, ids, liveGateway, known } from './fixtures.js';

const project: ProjectT = {
  project_id: ids.project,
  account_id: ids.account,
  name: 'payments',
  description: 'old',
  is_active: true,
  archived: false,
  archived_at: null,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
};

describe('project', () => {
  const look = known({ 'project.payments': ids.project });

  it('updates with every editable value, keeping an ignored field at its live value', () => {
    const want = desired(
      projectKind,
      'project.payments',
      { name: 'payments-2', description: 'new', active: false },
      { ignoreChanges: ['description'] },
    );
    const facts = projectKind.diff({ desired: want, live: project, known: look, changedSecrets: [] });
    expect(facts.changedKeys).toEqual(['active', 'name']);
    const { writes } = projectKind.planUpdate({
      desired: want,
      live: project,
      id: ids.project,
      changedKeys: facts.changedKeys,
      known: look,
    });
    expect(writes.map((w) => [w.operation, w.body])).toEqual([
      ['updateProject', { name: 'payments-2', description: 'old', isActive: false }],
    ]);
  });

  it('compares with the live view the planner made already (`observed`), the same as with the one it would make', () => {
    const want = desired(projectKind, 'project.payments', { name: 'payments', description: 'old', active: true });
    const observed = projectKind.view({ live: project, known: look });
    expect(projectKind.diff({ desired: want, live: project, known: look, changedSecrets: [], observed }).changedKeys).toEqual([]);
    // The view given is the one compared: the live object is not viewed again.
    const renamed = { ...observed, name: 'renamed-outside' };
    const facts = projectKind.diff({ desired: want, live: project, known: look, changedSecrets: [], observed: renamed });
    expect(facts.changes).toEqual([{ path: 'name', before: 'renamed-outside', after: 'payments' }]);
  });

  it('unarchives an archived project before updating it', () => {
    const want = desired(projectKind, 'project.payments', { name: 'payments', description: 'old', active: true });
    const facts = projectKind.diff({ desired: want, live: { ...project, archived: true }, known: look, changedSecrets: [] });
    expect(facts.changes).toEqual([{ path: 'archived', before: true, after: false }]);
    const { writes } = projectKind.planUpdate({
      desired: want,
      live: project,
      id: ids.project,
      changedKeys: facts.changedKeys,
      known: look,
    });
    expect(writes.map((w) => [w.operation, w.body])).toEqual([['archiveProject', { archived: false }]]);
  });

  it('creates, then deactivates a project configured inactive, referring to the new id', () => {
    const want = desired(projectKind, 'project.payments', { name: 'payments', description: '', active: false });
    const { writes } = projectKind.planCreate({ desired: want, known: known({}) });
    expect(writes[0]).toMatchObject({
      operation: 'createProject',
      body: { accountId: ids.account, name: 'payments', description: '' },
      effects: { id: { result: 'project_id' } },
    });
    expect(writes[1]).toMatchObject({ operation: 'updateProject', path: { id: { $ref: 'project.payments' } }, body: { isActive: false } });
  });
});

describe('record', () => {
  const live: RecordMetaT = {
    record_id: '00000000-0000-4000-8000-0000000000aa',
    account_id: ids.account,
    project_id: ids.project,
    name: 'stripe-key',
    tags: ['b', 'a'],
    secret_due_at: '2027-01-01T00:00:00.000Z',
    rotation_interval_days: 90,
    format: 'text',
    owner_user_id: ids.account,
    current_version: 1,
    archived: false,
    archived_at: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
  const look = known({ 'project.payments': ids.project });

  it('compares tags as a set and date-times by instant, and leaves unset fields alone', () => {
    const want = desired(recordKind, 'record.payments/stripe-key', {
      project: 'payments',
      name: 'stripe-key',
      tags: ['a', 'b'],
      secretDueAt: '2027-01-01T00:00:00Z',
    });
    expect(recordKind.diff({ desired: want, live, known: look, changedSecrets: [] }).changes).toEqual([]);
  });

  it('patches only changed metadata and writes a new encrypted value version', () => {
    const want = desired(
      recordKind,
      'record.payments/stripe-key',
      { project: 'payments', name: 'stripe-key', tags: ['a'] },
      { secrets: { value: { env: 'STRIPE' } } },
    );
    const facts = recordKind.diff({ desired: want, live, known: look, changedSecrets: ['value'] });
    expect(facts.changes).toEqual([
      { path: 'tags', before: ['a', 'b'], after: ['a'] },
      { path: 'value', sensitive: true },
    ]);
    const { writes } = recordKind.planUpdate({ desired: want, live, id: live.record_id, changedKeys: facts.changedKeys, known: look });
    expect(writes.map((w) => [w.operation, w.body])).toEqual([
      ['updateRecord', { tags: ['a'] }],
      ['createRecordVersion', { $encrypt: { field: 'value', record: live.record_id, version: (live.current_version ?? 0) + 1 } }],
    ]);
  });

  it('rotates a generated value whose live due date has passed, then moves the due date an interval ahead', () => {
    const want = desired(
      recordKind,
      'record.payments/salt',
      { project: 'payments', name: 'stripe-key', rotationIntervalDays: 30 },
      { secrets: { value: { generate: { length: 32 } } } },
    );
    const now = new Date('2026-11-24T15:00:00.000Z');
    const due = { ...live, secret_due_at: '2026-11-21T09:00:00.000Z', rotation_interval_days: 30 };
    const facts = recordKind.diff({ desired: want, live: due, known: { ...look, now }, changedSecrets: [] });
    expect(facts.changes).toEqual([
      { path: 'value', sensitive: true, note: 'rotate: due 3 days ago', cause: 'rotation-due' },
      { path: 'secretDueAt', before: '2026-11-21T09:00:00.000Z', after: '2026-12-24T00:00:00.000Z', cause: 'rotation-due' },
    ]);
    expect(facts.rotateKeys).toEqual(['value']);
    // The version the rotation writes is recorded, so the key ring never takes an older one from the API.
    expect(facts.inputs).toEqual({ secretDueAt: '2026-12-24T00:00:00.000Z', valueVersion: (due.current_version ?? 0) + 1 });
    const { writes } = recordKind.planUpdate({
      desired: want,
      live: due,
      id: live.record_id,
      changedKeys: facts.changedKeys,
      known: { ...look, now },
    });
    expect(writes.map((w) => [w.operation, w.body])).toEqual([
      ['rotateRecord', { $encrypt: { field: 'value', record: live.record_id, version: (live.current_version ?? 0) + 1 } }],
      ['updateRecord', { secretDueAt: '2026-12-24T00:00:00.000Z' }],
    ]);
    // Not yet due: nothing to do.
    const ahead = recordKind.diff({
      desired: want,
      live: { ...due, secret_due_at: '2026-11-25T00:00:00.000Z' },
      known: { ...look, now },
      changedSecrets: [],
    });
    expect(ahead.changes.filter((c) => c.path === 'value')).toEqual([]);
  });

  it('creates in a project made earlier in the same apply through a $ref, then writes the first value bound to the new record', () => {
    const want = desired(
      recordKind,
      'record.payments/k',
      { project: 'payments', name: 'k' },
      { secrets: { value: { generate: { length: 32 } } } },
    );
    const { writes } = recordKind.planCreate({ desired: want, known: known({}) });
    expect(writes[0]).toMatchObject({
      operation: 'createRecord',
      body: { projectId: { $ref: 'project.payments' }, name: 'k' },
      effects: { id: { result: 'record_id' }, parents: { projectId: { $ref: 'project.payments' } } },
    });
    expect(writes[0]!.body).not.toHaveProperty('value');
    expect(writes[1]).toMatchObject({
      operation: 'createRecordVersion',
      path: { id: { $ref: 'record.payments/k' } },
      body: { $encrypt: { field: 'value', record: { $ref: 'record.payments/k' }, version: 1 } },
      effects: { valueVersion: { record: 'record_id', version: 'version' } },
    });
  });
});

describe('credential', () => {
  it('rotates a changed secret in place and refuses a provider change', () => {
    const live = {
      credential_id: ids.credA,
      account_id: ids.account,
      provider_id: ids.openai,
      label: 'a',
      base_url: null,
      status: 'active' as const,
      created_at: '',
      updated_at: '',
      rotated_at: null,
    };
    const look = known({ 'credential.a': ids.credA });
    const want = desired(
      credentialKind,
      'credential.a',
      { provider: 'openai', label: 'a', baseUrl: null },
      { secrets: { secret: { env: 'K' } } },
    );
    const facts = credentialKind.diff({ desired: want, live, known: look, changedSecrets: ['secret'] });
    expect(facts).toMatchObject({ changedKeys: ['secret'], rotateKeys: ['secret'], problems: [] });
    expect(credentialKind.planUpdate({ desired: want, live, id: ids.credA, changedKeys: ['secret'], known: look }).writes).toMatchObject([
      { operation: 'rotateCredential', body: { secret: { $secret: 'secret' } } },
    ]);
    const moved = credentialKind.diff({
      desired: { ...want, attributes: { ...want.attributes, provider: 'anthropic' } },
      live,
      known: look,
      changedSecrets: [],
    });
    expect(moved.problems?.map((p) => p.code)).toEqual(['immutable_vendor']);
  });
});

describe('gateway', () => {
  const look = known({ 'project.payments': ids.project, 'credential.a': ids.credA, 'gateway.prod': ids.gateway });
  const base = {
    project: 'payments',
    name: 'Prod',
    slug: 'prod',
    defaultProvider: 'openai',
    defaultModel: 'gpt-4o-mini',
    credentials: ['a'],
  };

  it('compares only the settings the configuration gives, and sends only the configured members of a group', () => {
    const want = desired(gatewayKind, 'gateway.prod', { ...base, settings: { requestsPerMinute: 60, cache: { ttlSeconds: 60 } } });
    const live = liveGateway();
    const facts = gatewayKind.diff({ desired: want, live, known: look, changedSecrets: [] });
    expect(facts.changes).toEqual([{ path: 'settings.cache.ttlSeconds', before: 300, after: 60 }]);
    const { writes } = gatewayKind.planUpdate({ desired: want, live, id: ids.gateway, changedKeys: facts.changedKeys, known: look });
    expect(writes.map((w) => [w.operation, w.body])).toEqual([['updateGatewaySettings', { cache: { ttlSeconds: 60 } }]]);
  });

  it('attaches a new credential (by $ref) before detaching the old one', () => {
    const want = desired(gatewayKind, 'gateway.prod', { ...base, credentials: ['b'] });
    const live = liveGateway();
    const facts = gatewayKind.diff({ desired: want, live, known: look, changedSecrets: [] });
    expect(facts.changes).toEqual([{ path: 'credentials', before: ['a'], after: ['b'] }]);
    const { writes } = gatewayKind.planUpdate({ desired: want, live, id: ids.gateway, changedKeys: facts.changedKeys, known: look });
    expect(writes.map((w) => [w.operation, w.path, w.body])).toEqual([
      ['attachGatewayCredential', { id: ids.gateway }, { credentialId: { $ref: 'credential.b' } }],
      ['detachGatewayCredential', { id: ids.gateway, credentialId: ids.credA }, undefined],
    ]);
  });

  it('says how many tokens a deletion revokes', () => {
    const { notes } = gatewayKind.planDelete({
      address: 'gateway.prod',
      id: ids.gateway,
      live: liveGateway(),
      children: { gateway_token: [{ revoked_at: null }, { revoked_at: null }, { revoked_at: '2026-01-01T00:00:00Z' }] },
    });
    expect(notes).toEqual(['deleting the gateway disables it and revokes its 2 active tokens']);
  });
});

describe('gateway token', () => {
  const live: GatewayTokenT = {
    token_id: '00000000-0000-4000-8000-0000000000bb',
    gateway_id: ids.gateway,
    name: 'ci',
    token_prefix: 'gw_',
    scopes: ['run'],
    principal_type: 'user',
    owner_user_id: null,
    service_account_id: null,
    allowed_models: [],
    spend_limit: null,
    spend_window: null,
    rate_limit_per_min: 60,
    created_at: '',
    last_used_at: null,
    expires_at: '2027-01-01T00:00:00Z',
    revoked_at: null,
  };
  const look = known({ 'gateway.prod': ids.gateway });
  const base = {
    gateway: 'prod',
    name: 'ci',
    scopes: ['run'],
    expiresInDays: 30,
    allowedModels: [],
    rateLimitPerMin: 60,
    serviceAccount: null,
    spendLimit: null,
    spendWindow: null,
  };
  const state = { kind: 'gateway_token' as const, id: live.token_id, inputs: { ...base }, fingerprints: {}, createdAt: '', updatedAt: '' };

  it('renames in place', () => {
    const want = desired(gatewayTokenKind, 'gateway_token.prod/ci', { ...base, name: 'ci-2' });
    const facts = gatewayTokenKind.diff({ desired: want, live, state, known: look, changedSecrets: [] });
    expect(facts.replaceKeys).toEqual([]);
    expect(
      gatewayTokenKind.planUpdate({ desired: want, live, id: live.token_id, changedKeys: facts.changedKeys, known: look }).writes,
    ).toMatchObject([{ operation: 'renameGatewayToken', path: { id: ids.gateway, tokenId: live.token_id }, body: { name: 'ci-2' } }]);
  });

  it('marks scopes and expiry (compared with what was applied) as forcing a replacement', () => {
    const want = desired(gatewayTokenKind, 'gateway_token.prod/ci', { ...base, scopes: ['run', 'read_logs'], expiresInDays: 60 });
    const facts = gatewayTokenKind.diff({ desired: want, live, state, known: look, changedSecrets: [] });
    expect(facts.replaceKeys).toEqual(['scopes', 'expiresInDays']);
    expect(facts.changes).toContainEqual({ path: 'expiresInDays', before: 30, after: 60, forcesReplace: true });
  });

  it('seals the one-time plaintext of a new token', () => {
    const want = desired(gatewayTokenKind, 'gateway_token.prod/ci', base);
    expect(gatewayTokenKind.planCreate({ desired: want, known: known({}) }).writes[0]).toMatchObject({
      operation: 'createGatewayToken',
      path: { id: { $ref: 'gateway.prod' } },
      effects: { id: { result: 'token_id' }, seal: { name: 'plaintext', result: 'plaintext' } },
    });
  });
});

describe('gateway token issued to a Service Account', () => {
  const sa = (name: string, id: string) => ({
    service_account_id: id,
    account_id: ids.account,
    name,
    status: 'active' as const,
    created_at: '',
    public_key: 'A'.repeat(43) + '=',
    key_id: 'x25519:0000000000000000',
  });
  const ciDeployer = sa('ci-deployer', '00000000-0000-4000-8000-0000000000e1');
  const other = sa('other-bot', '00000000-0000-4000-8000-0000000000e2');
  const live: GatewayTokenT = {
    token_id: '00000000-0000-4000-8000-0000000000bc',
    gateway_id: ids.gateway,
    name: 'checkout',
    token_prefix: 'gw_',
    scopes: ['run'],
    principal_type: 'service_account',
    owner_user_id: null,
    service_account_id: ciDeployer.service_account_id,
    allowed_models: [],
    spend_limit: '25.00',
    spend_window: 'daily',
    rate_limit_per_min: null,
    created_at: '',
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
  };
  const base = {
    gateway: 'prod',
    name: 'checkout',
    scopes: ['run'],
    expiresInDays: null,
    allowedModels: [],
    rateLimitPerMin: null,
    serviceAccount: 'ci-deployer',
    spendLimit: '25.00',
    spendWindow: 'daily' as 'daily' | 'weekly',
  };
  const withAccounts = (read: boolean) => {
    return known({ 'gateway.prod': ids.gateway }, new Map(read ? [[serviceAccounts, [ciDeployer, other]]] : []) as LookupResults);
  };
  const facts = (attributes: typeof base, read = true) =>
    gatewayTokenKind.diff({
      desired: desired(gatewayTokenKind, 'gateway_token.prod/checkout', attributes),
      live,
      known: withAccounts(read),
      changedSecrets: [],
    });

  it('compares the Service Account by name: the same one is no change', () => {
    expect(facts(base).changes).toEqual([]);
  });

  it('replaces the token for another Service Account or another spend limit', () => {
    expect(facts({ ...base, serviceAccount: 'other-bot' }).changes).toEqual([
      { path: 'serviceAccount', before: 'ci-deployer', after: 'other-bot', forcesReplace: true },
    ]);
    expect(facts({ ...base, spendLimit: '30.00', spendWindow: 'weekly' }).replaceKeys).toEqual(['spendLimit', 'spendWindow']);
  });

  it('does not compare the Service Account when the Service Accounts could not be read', () => {
    expect(facts({ ...base, serviceAccount: 'other-bot' }, false).changes).toEqual([]);
  });

  it('creates the token with the Service Account`s id and the spend limit', () => {
    const created = gatewayTokenKind.planCreate({
      desired: desired(gatewayTokenKind, 'gateway_token.prod/checkout', base),
      known: withAccounts(true),
    });
    expect(created.writes[0]!.body).toMatchObject({
      serviceAccountId: ciDeployer.service_account_id,
      spendLimit: '25.00',
      spendWindow: 'daily',
    });
  });
});

describe('otel export', () => {
  it('sends every configured header when one header value changed (the PATCH replaces the set)', () => {
    const live = {
      gatewayId: ids.gateway,
      export: {
        enabled: true,
        endpoint: 'https://otel.example.com',
        exportMetrics: true,
        exportTraces: true,
        headerNames: ['Authorization', 'X-Team'],
        updatedAt: null,
      },
    };
    const want = desired(
      otelExportKind,
      'otel_export.prod',
      {
        gateway: 'prod',
        enabled: true,
        endpoint: 'https://otel.example.com',
        exportMetrics: true,
        exportTraces: true,
        headerNames: ['X-Team', 'Authorization'],
      },
      {
        secrets: { 'headers.Authorization': { env: 'A' }, 'headers.X-Team': { env: 'B' } },
      },
    );
    const look = known({ 'gateway.prod': ids.gateway });
    const facts = otelExportKind.diff({ desired: want, live, known: look, changedSecrets: ['headers.Authorization'] });
    expect(facts.changes).toEqual([{ path: 'headers.Authorization', sensitive: true }]);
    const { writes } = otelExportKind.planUpdate({ desired: want, live, id: ids.gateway, changedKeys: facts.changedKeys, known: look });
    expect(writes[0]?.body).toEqual({
      headers: { 'X-Team': { $secret: 'headers.X-Team' }, Authorization: { $secret: 'headers.Authorization' } },
    });
  });
});
