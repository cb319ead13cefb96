// Request rate limit (429 with Retry-After) and plan limits (409 plan_limit_reached), both configurable.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const acme = fixtures.accounts[0]!.id;
let emulator: RunningEmulator | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const get = (token: string) =>
  fetch(`${emulator!.url}/v1/providers`, { headers: { authorization: `Bearer ${token}` } }).then(async (res) => ({
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as { error?: { code: string; message: string } },
  }));

describe('rate limit', () => {
  it('answers 429 rate_limited "Too many requests" with Retry-After beyond N requests per second per token', async () => {
    const clock = Date.parse('2026-03-01T12:00:00.000Z');
    let now = clock;
    emulator = await startEmulator({ rateLimit: 3, now: () => new Date(now) });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(fixtures.tokens.admin));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers[3]).toMatchObject({ retryAfter: '1', body: { error: { code: 'rate_limited', message: 'Too many requests' } } });
    // Per token: another caller is not affected.
    expect((await get(fixtures.tokens.reader)).status).toBe(200);
    // The next second of the emulator clock opens a new window.
    now = clock + 1000;
    expect((await get(fixtures.tokens.admin)).status).toBe(200);
  });

  it('is honoured by the client, which waits Retry-After and then succeeds', async () => {
    let now = Date.parse('2026-03-01T12:00:00.000Z');
    emulator = await startEmulator({ rateLimit: 1, now: () => new Date(now) });
    const waits: number[] = [];
    const client = createClient({
      baseUrl: emulator.url,
      token: fixtures.tokens.admin,
      accountId: acme,
      retry: { maxRetryAfterMs: 5 },
      onEvent: (e) => {
        if (e.type === 'retry') {
          waits.push(e.delayMs);
          now += 1000;
        }
      },
    });
    await client.call('listProviders', {});
    const providers = await client.call('listProviders', {});
    await client.close();
    expect(providers.map((p) => p.name)).toContain('openai');
    expect(waits).toEqual([5]); // Retry-After: 1 s, capped by the test's maxRetryAfterMs
  });

  it('is off by default', async () => {
    emulator = await startEmulator();
    const statuses = await Promise.all(Array.from({ length: 50 }, () => get(fixtures.tokens.admin).then((a) => a.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe('plan limits', () => {
  it('refuses creation beyond the plan with 409 plan_limit_reached, per account and kind', async () => {
    emulator = await startEmulator({ planLimits: { projects: 2, credentials: 2, gateways: 1 } });
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
    // Account 1 starts with one active project (and one archived, which does not count), two credentials and one gateway.
    await client.call('createProject', { body: { accountId: acme, name: 'second', description: '' } });
    await expect(client.call('createProject', { body: { accountId: acme, name: 'third', description: '' } })).rejects.toMatchObject({
      status: 409,
      code: 'conflict',
      reason: 'plan_limit_reached',
    });
    await expect(
      client.call('createCredential', { body: { providerId: fixtures.providers[0]!.id, label: 'x', secret: 'sk-long-enough' } }),
    ).rejects.toMatchObject({ reason: 'plan_limit_reached' });
    await expect(
      client.call('createGateway', {
        body: {
          projectId: fixtures.projects[0]!.id,
          name: 'g',
          slug: 'g2',
          defaultProviderId: fixtures.providers[0]!.id,
          defaultModel: 'gpt-4o',
          credentialIds: [fixtures.credentials[0]!.id],
        },
      }),
    ).rejects.toMatchObject({ reason: 'plan_limit_reached' });
    // Another account has its own allowance.
    const staging = fixtures.accounts[1]!.id;
    await expect(
      client.call('createProject', { body: { accountId: staging, name: 'ok', description: '' } }, { accountId: staging }),
    ).resolves.toHaveProperty('project_id');
    await client.close();
  });
});
