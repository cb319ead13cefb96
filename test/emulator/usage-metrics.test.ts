// GET /usage/metrics per gateway, grouped by token and model (docs/api-assumptions.md), over usage a test sets down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { ApiError } from '../../src/api/errors.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';

const emulator = withEmulator({ seed: 3 });
const acme = fixtures.accounts[0]!.id;
const gateway = fixtures.gateways[0]!.id;
const token = fixtures.gatewayTokens[0]!.id;
let client: ApiClient;

beforeAll(() => {
  client = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: acme });
  emulator().addUsage([
    { gatewayId: gateway, tokenId: token, model: 'usage-test-model', requests: 3, costUsd: '1.000001', ago: 0 },
    { gatewayId: gateway, model: 'usage-test-model', requests: 2, costUsd: '0.50', ago: 0 },
  ]);
});
afterAll(() => client.close());

describe('GET /usage/metrics with gatewayId and groupBy', () => {
  it('gives one row per bucket, token and model, with the exact cost set down', async () => {
    const rows = await client.call('getUsageMetrics', {
      query: { gatewayId: gateway, groupBy: 'token,model', since: new Date(emulator().now().getTime() - 3_600_000).toISOString() },
    });
    // The seeded traffic of the last hour is there too, under the seeded models.
    expect(
      rows
        .filter((r) => r.model === 'usage-test-model')
        .map((r) => [r.token_id, r.model, r.requests, r.cost_usd])
        .sort(),
    ).toEqual([
      [null, 'usage-test-model', 2, '0.500000'],
      [token, 'usage-test-model', 3, '1.000001'],
    ]);
    expect(rows.every((r) => r.gateway_id === undefined)).toBe(true);
  });

  it('refuses an unknown group with 400 invalid_filter naming the accepted ones', async () => {
    const error = await client.call('getUsageMetrics', { query: { gatewayId: gateway, groupBy: 'token,colour' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).reason).toBe('invalid_filter');
  });

  it('refuses a gateway of another account (403 not_authorized)', async () => {
    const error = await client.call('getUsageMetrics', { query: { gatewayId: fixtures.gateways[2]!.id } }).catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(403);
  });
});
