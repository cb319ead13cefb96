// The seeded data and the simulated traffic: every read has real rows, the fixtures are the same on every
// run, and the traffic is the same for the same seed.
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures, startEmulator } from '../../src/emulator/index.js';

const acme = fixtures.accounts[0]!.id;
const project = fixtures.projects[0]!.id;
const gateway = fixtures.gateways[0]!.id;
const now = () => new Date('2026-03-01T12:00:00Z');

async function snapshot(seed: number) {
  const emulator = await startEmulator({ seed, now });
  const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme });
  const strip = <T extends object>(rows: T[]) => rows.map((r) => JSON.stringify(r));
  const result = {
    logs: strip(await client.listAll('listGatewayLogs', { path: { id: gateway } })),
    keyAccess: await client.call('listGatewayKeyAccess', { path: { id: gateway }, query: { limit: 200 } }),
    spend: await client.call('getUsageSpend', { query: { projectId: project } }),
    metrics: await client.call('getUsageMetrics', { query: { projectId: project, bucket: 'day' } }),
    anomalies: await client.call('listRecordAnomalies', { query: { scopeType: 'project', scopeId: project } }),
    alerts: await client.call('listRecordAlerts', { query: { scopeType: 'project', scopeId: project } }),
    activity: await client.call('listRecordActivity', { query: { scopeType: 'project', scopeId: project } }),
    access: await client.call('listRecordAccess', { query: { scopeType: 'project', scopeId: project } }),
    usageLogs: await client.call('listUsageLogs', { query: { projectId: project, status: 'error' } }),
    body: await client.call('getUsageLog', { path: { logId: (await client.call('listUsageLogs', { query: { limit: 1 } }))[0]!.log_id } }),
  };
  await client.close();
  await emulator.close();
  return result;
}

describe('seeded data', () => {
  it('gives every feed real rows', async () => {
    const data = await snapshot(1);
    expect(data.logs.length).toBe(120);
    expect(data.keyAccess.total).toBe(120);
    expect(new Set(data.keyAccess.rows.map((r) => r.outcome))).toEqual(new Set(['granted', 'denied', 'failed']));
    expect(Number(data.spend.total_usd)).toBeGreaterThan(0);
    expect(data.spend.by_gateway.map((g) => g.gateway_id)).toEqual([gateway]);
    expect(data.metrics.reduce((sum, b) => sum + b.requests, 0)).toBe(120);
    expect(data.anomalies).toHaveLength(2);
    expect(data.alerts).toHaveLength(2);
    expect(data.activity).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'read', count: 3 })]));
    expect(data.access.length).toBeGreaterThan(0);
    expect(data.usageLogs.length).toBeGreaterThan(0);
    expect(data.usageLogs.every((l) => l.status === 'error')).toBe(true);
    expect(data.body.request_body).toMatchObject({ model: expect.any(String), messages: expect.any(Array) });
  });

  it('is the same for the same seed and clock, and differs for another seed', async () => {
    const one = await snapshot(5);
    const two = await snapshot(5);
    expect(two.logs).toEqual(one.logs);
    expect(two.spend).toEqual(one.spend);
    const other = await snapshot(6);
    expect(other.logs).not.toEqual(one.logs);
  });

  it('has the fixtures the brief promises: three accounts, the admin in the first two only, and five tokens', () => {
    expect(fixtures.accounts).toHaveLength(3);
    expect(fixtures.users[0]!.memberships.map((m) => m.accountId)).toEqual([fixtures.accounts[0]!.id, fixtures.accounts[1]!.id]);
    expect(fixtures.tokens).toMatchObject({
      admin: expect.stringMatching(/^sk-svc-pat-/),
      reader: expect.stringMatching(/^sk-svc-pat-/),
      expired: expect.stringMatching(/^sk-svc-pat-/),
      serviceAccount: expect.stringMatching(/^sk-svc-sa-/),
      inactiveServiceAccount: expect.stringMatching(/^sk-svc-sa-/),
    });
    expect(fixtures.providers.map((p) => p.name)).toEqual(['openai', 'anthropic', 'mistral']);
    expect(fixtures.roles.find((r) => r.name === 'reader')!.permissions.every((p) => /:read/.test(p))).toBe(true);
  });
});
