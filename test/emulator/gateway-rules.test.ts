// The gateway state rules of the spec: delete disables and revokes tokens but keeps history; token revoke
// vs delete; plaintext only at creation; settings merge; OTel header values write-only; slug rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';

const emulator = withEmulator();
const acme = fixtures.accounts[0]!.id;
const project = fixtures.projects[0]!.id;
const openai = fixtures.providers[0]!.id;
const [openaiCredential, anthropicCredential] = fixtures.credentials.map((c) => c.id) as [string, string];
let client: ApiClient;

beforeAll(() => {
  client = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
});
afterAll(() => client.close());

const newGateway = (slug: string, credentialIds = [openaiCredential]) =>
  client.call('createGateway', {
    body: { projectId: project, name: `gateway ${slug}`, slug, defaultProviderId: openai, defaultModel: 'gpt-4o', credentialIds },
  });

describe('gateways', () => {
  it('delete disables the gateway, revokes its tokens, keeps its logs and hides it from the list unless includeDisabled', async () => {
    const gateway = await newGateway('to-disable');
    const token = await client.call('createGatewayToken', { path: { id: gateway.gateway_id }, body: { name: 'app', scopes: ['run'] } });
    const logsBefore = await client.call('listGatewayLogs', { path: { id: gateway.gateway_id } });
    expect(logsBefore.length).toBeGreaterThan(0);

    expect(await client.call('deleteGateway', { path: { id: gateway.gateway_id } })).toBeUndefined();

    const after = await client.call('getGateway', { path: { id: gateway.gateway_id } });
    expect(after).toMatchObject({ status: 'disabled', disabled_at: expect.any(String) });
    const tokens = await client.call('listGatewayTokens', { path: { id: gateway.gateway_id } });
    expect(tokens.find((t) => t.token_id === token.token_id)?.revoked_at).toEqual(expect.any(String));
    expect(await client.call('listGatewayLogs', { path: { id: gateway.gateway_id } })).toEqual(logsBefore);
    expect((await client.call('listGateways', {})).map((g) => g.gateway_id)).not.toContain(gateway.gateway_id);
    expect((await client.call('listGateways', { query: { includeDisabled: true } })).map((g) => g.gateway_id)).toContain(
      gateway.gateway_id,
    );
    // The shared credential stays active; the slug is free again.
    expect((await client.call('listCredentials', {})).map((c) => c.credential_id)).toContain(openaiCredential);
    await expect(newGateway('to-disable')).resolves.toMatchObject({ slug: 'to-disable', status: 'enabled' });
  });

  it('checks slugs: the pattern (400 invalid_slug) and uniqueness among enabled gateways (409)', async () => {
    for (const slug of ['-x', 'UPPER', 'a'.repeat(64), 'sp ace', '']) {
      await expect(newGateway(slug), slug).rejects.toMatchObject({ status: 400, reason: 'invalid_slug' });
    }
    await expect(newGateway('a'.repeat(63))).resolves.toBeDefined();
    await expect(newGateway('payments')).rejects.toMatchObject({ status: 409, reason: 'gateway_slug_exists' });
  });

  it('refuses a credential of another account (403) and a revoked one (409 credential_revoked)', async () => {
    await expect(newGateway('foreign', [fixtures.credentials[2]!.id])).rejects.toMatchObject({ status: 403, reason: 'not_authorized' });
    const credential = await client.call('createCredential', { body: { providerId: openai, label: 'temp', secret: 'sk-temporary-key' } });
    await client.call('deleteCredential', { path: { id: credential.credential_id } });
    await expect(newGateway('revoked', [credential.credential_id])).rejects.toMatchObject({ status: 409, reason: 'credential_revoked' });
    const gateway = await newGateway('attach-revoked');
    await expect(
      client.call('attachGatewayCredential', { path: { id: gateway.gateway_id }, body: { credentialId: credential.credential_id } }),
    ).rejects.toMatchObject({
      status: 409,
      reason: 'credential_revoked',
    });
  });

  it('attaches and detaches credentials, but never the last one', async () => {
    const gateway = await newGateway('attachments');
    const attached = await client.call('attachGatewayCredential', {
      path: { id: gateway.gateway_id },
      body: { credentialId: anthropicCredential },
    });
    expect(attached.credential_ids).toEqual([openaiCredential, anthropicCredential]);
    await expect(
      client.call('attachGatewayCredential', { path: { id: gateway.gateway_id }, body: { credentialId: anthropicCredential } }),
    ).rejects.toMatchObject({ status: 409 });
    const detached = await client.call('detachGatewayCredential', { path: { id: gateway.gateway_id, credentialId: anthropicCredential } });
    expect(detached.credential_ids).toEqual([openaiCredential]);
    await expect(
      client.call('detachGatewayCredential', { path: { id: gateway.gateway_id, credentialId: openaiCredential } }),
    ).rejects.toMatchObject({ status: 409, reason: 'last_credential' });
  });

  it('starts with the default settings and merges a PATCH one level deep', async () => {
    const gateway = await newGateway('settings');
    expect(gateway.settings).toEqual({
      requestsPerMinute: null,
      tokensPerMinute: null,
      spendLimitUsd: null,
      window: 'day',
      guardrails: { blockPii: false, blockedTerms: [], maxInputTokens: null },
      cache: { enabled: false, ttlSeconds: 0 },
    });
    await client.call('updateGatewaySettings', { path: { id: gateway.gateway_id }, body: { requestsPerMinute: 100 } });
    const settings = await client.call('updateGatewaySettings', {
      path: { id: gateway.gateway_id },
      body: { cache: { enabled: true, ttlSeconds: 60 }, spendLimitUsd: '25.50' },
    });
    expect(settings).toMatchObject({
      requestsPerMinute: 100,
      spendLimitUsd: '25.50',
      cache: { enabled: true, ttlSeconds: 60 },
      window: 'day',
    });
    expect((await client.call('getGateway', { path: { id: gateway.gateway_id } })).settings).toEqual(settings);
    // A group given in part keeps its other members.
    const partial = await client.call('updateGatewaySettings', {
      path: { id: gateway.gateway_id },
      body: { cache: { ttlSeconds: 5 }, guardrails: { blockPii: true } },
    });
    expect(partial.cache).toEqual({ enabled: true, ttlSeconds: 5 });
    expect(partial.guardrails).toEqual({ blockPii: true, blockedTerms: [], maxInputTokens: null });
  });

  it('never returns OTel header values; a PATCH changes only what it names and `headers` replaces the set', async () => {
    const gateway = await newGateway('otel');
    expect(await client.call('getOtelExport', { path: { id: gateway.gateway_id } })).toEqual({
      enabled: false,
      endpoint: null,
      exportMetrics: false,
      exportTraces: false,
      headerNames: [],
      updatedAt: null,
    });
    await client.call('updateOtelExport', {
      path: { id: gateway.gateway_id },
      body: { endpoint: 'https://otel.example.com', headers: { 'X-Api-Key': 'otel-secret-value', Tenant: 'acme' } },
    });
    await client.call('updateOtelExport', { path: { id: gateway.gateway_id }, body: { exportTraces: true } });
    let otel = await client.call('getOtelExport', { path: { id: gateway.gateway_id } });
    expect(otel).toMatchObject({
      enabled: false,
      endpoint: 'https://otel.example.com',
      exportTraces: true,
      headerNames: ['Tenant', 'X-Api-Key'],
    });
    await client.call('updateOtelExport', { path: { id: gateway.gateway_id }, body: { headers: { Tenant: 'acme' } } });
    otel = await client.call('getOtelExport', { path: { id: gateway.gateway_id } });
    expect(otel.headerNames).toEqual(['Tenant']);
    const everything = JSON.stringify([
      otel,
      await client.call('getGateway', { path: { id: gateway.gateway_id } }),
      await client.call('listGateways', { query: { limit: 200 } }),
    ]);
    expect(everything).not.toContain('otel-secret-value');
  });
});

describe('gateway tokens', () => {
  it('returns the plaintext only at creation; reads show the 8-character prefix', async () => {
    const gateway = await newGateway('tokens');
    const created = await client.call('createGatewayToken', {
      path: { id: gateway.gateway_id },
      body: { name: 'svc', scopes: ['run'], expiresInDays: 7, allowedModels: ['gpt-4o'], rateLimitPerMin: 60 },
    });
    expect(created.plaintext).toMatch(/^gwt_[A-Za-z0-9]{40}$/);
    expect(created.token_prefix).toBe(created.plaintext.slice(0, 8));
    expect(created).toMatchObject({ principal_type: 'user', allowed_models: ['gpt-4o'], rate_limit_per_min: 60, revoked_at: null });
    const listed = await client.call('listGatewayTokens', { path: { id: gateway.gateway_id } });
    expect(JSON.stringify(listed)).not.toContain(created.plaintext);
    expect(listed[0]).not.toHaveProperty('plaintext');
  });

  it('allows the same name twice (a replacement is created before the old token is revoked)', async () => {
    const gateway = await newGateway('replace');
    const old = await client.call('createGatewayToken', { path: { id: gateway.gateway_id }, body: { name: 'app', scopes: ['run'] } });
    const replacement = await client.call('createGatewayToken', {
      path: { id: gateway.gateway_id },
      body: { name: 'app', scopes: ['run'] },
    });
    const revoked = await client.call('revokeGatewayToken', { path: { id: gateway.gateway_id, tokenId: old.token_id } });
    expect(revoked.revoked_at).toEqual(expect.any(String));
    const listed = await client.call('listGatewayTokens', { path: { id: gateway.gateway_id } });
    expect(listed.map((t) => [t.token_id, t.name, t.revoked_at === null])).toEqual([
      [old.token_id, 'app', false],
      [replacement.token_id, 'app', true],
    ]);
  });

  it('counts a spend limit given without a window daily, and refuses a window without a limit', async () => {
    const gateway = await newGateway('spend');
    const daily = await client.call('createGatewayToken', {
      path: { id: gateway.gateway_id },
      body: { name: 'limited', scopes: ['run'], spendLimit: '25.00' },
    });
    expect(daily).toMatchObject({ spend_limit: '25.00', spend_window: 'daily' });
    await expect(
      client.call('createGatewayToken', {
        path: { id: gateway.gateway_id },
        body: { name: 'window', scopes: ['run'], spendWindow: 'weekly' },
      }),
    ).rejects.toMatchObject({ status: 400, reason: 'spend_window_without_limit' });
  });

  it('delete removes the row, revoked or not', async () => {
    const gateway = await newGateway('delete-token');
    const token = await client.call('createGatewayToken', { path: { id: gateway.gateway_id }, body: { name: 'gone', scopes: ['run'] } });
    await client.call('revokeGatewayToken', { path: { id: gateway.gateway_id, tokenId: token.token_id } });
    expect(await client.call('deleteGatewayToken', { path: { id: gateway.gateway_id, tokenId: token.token_id } })).toEqual({
      token_id: token.token_id,
      deleted: true,
    });
    expect(await client.call('listGatewayTokens', { path: { id: gateway.gateway_id } })).toEqual([]);
  });

  it('issues a token for a Service Account only of this account (403) and only while active (409)', async () => {
    const gateway = await newGateway('sa-tokens');
    const ok = await client.call('createGatewayToken', {
      path: { id: gateway.gateway_id },
      body: { name: 'ci', scopes: ['run'], serviceAccountId: fixtures.serviceAccounts[0]!.id },
    });
    expect(ok).toMatchObject({
      principal_type: 'service_account',
      service_account_id: fixtures.serviceAccounts[0]!.id,
      owner_user_id: null,
    });
    await expect(
      client.call('createGatewayToken', {
        path: { id: gateway.gateway_id },
        body: { name: 'x', scopes: ['run'], serviceAccountId: fixtures.serviceAccounts[2]!.id },
      }),
    ).rejects.toMatchObject({ status: 403, reason: 'service_account_not_in_account' });
    await expect(
      client.call('createGatewayToken', {
        path: { id: gateway.gateway_id },
        body: { name: 'x', scopes: ['run'], serviceAccountId: fixtures.serviceAccounts[1]!.id },
      }),
    ).rejects.toMatchObject({ status: 409, reason: 'service_account_inactive' });
  });
});
