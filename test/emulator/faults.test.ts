// Fault injection: seeded status faults answered before any work, "commit then drop" for writes, added
// latency, and the spec string the CLI takes. Same seed, same requests -> same faults.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures, parseFaultSpec, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const acme = fixtures.accounts[0]!.id;
let emulator: RunningEmulator | undefined;

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const headers = { authorization: `Bearer ${fixtures.tokens.admin}`, 'x-account-id': acme, 'content-type': 'application/json' };

async function statuses(faults: string, count: number): Promise<number[]> {
  emulator = await startEmulator({ faults });
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await fetch(`${emulator.url}/v1/providers`, { headers })).status);
  await emulator.close();
  emulator = undefined;
  return seen;
}

describe('fault injection', () => {
  it('answers a seeded fraction of requests 429/500/503, the same sequence for the same seed', async () => {
    const spec = '429=0.1,500=0.1,503=0.2,seed=42';
    const first = await statuses(spec, 60);
    const second = await statuses(spec, 60);
    const other = await statuses('429=0.1,500=0.1,503=0.2,seed=7', 60);
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 500, 503]));
  });

  it('answers faults before doing anything: a faulted write creates nothing', async () => {
    emulator = await startEmulator({ faults: '503=1' });
    const res = await fetch(`${emulator.url}/v1/projects`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ accountId: acme, name: 'never', description: '' }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: unknown }).error).toEqual({ code: 'service_unavailable', message: 'service_unavailable' });
    expect(emulator.stats().writes).toBe(0);
    emulator.setFaults(undefined);
    const list = await fetch(`${emulator.url}/v1/projects`, { headers });
    expect(((await list.json()) as { data: { name: string }[] }).data.map((p) => p.name)).not.toContain('never');
  });

  it('drop: performs and commits the write, then closes the connection without an answer', async () => {
    emulator = await startEmulator({ faults: 'drop=1' });
    const sent = fetch(`${emulator.url}/v1/projects`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ accountId: acme, name: 'dropped', description: '' }),
    });
    await expect(sent).rejects.toThrow();
    expect(emulator.stats().writes).toBe(1);
    const list = await fetch(`${emulator.url}/v1/projects`, { headers });
    expect(list.status).toBe(200); // reads are never dropped
    expect(((await list.json()) as { data: { name: string }[] }).data.filter((p) => p.name === 'dropped')).toHaveLength(1);
  });

  it('a client retrying a dropped write with the same key gets the stored answer and creates no duplicate', async () => {
    emulator = await startEmulator();
    emulator.setFaults('drop=1');
    const client = createClient({
      baseUrl: emulator.url,
      token: fixtures.tokens.admin,
      accountId: acme,
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
      onEvent: (e) => {
        if (e.type === 'retry') emulator!.setFaults(undefined);
      },
    });
    const created = await client.call(
      'createProject',
      { body: { accountId: acme, name: 'exactly-once', description: '' } },
      { idempotencyKey: 'drop-key' },
    );
    const projects = await client.call('listProjects', {});
    await client.close();
    expect(projects.filter((p) => p.name === 'exactly-once').map((p) => p.project_id)).toEqual([created.project_id]);
    expect(emulator.stats().byOperation.createProject).toBe(2);
    expect(emulator.stats().writes).toBe(1);
    emulator.resetStats();
    expect(emulator.stats()).toMatchObject({ requests: 0, writes: 0, byOperation: { createProject: 0 } });
  });

  it('a client retrying a write after an injected 503 sends the same key and bytes and creates one object', async () => {
    emulator = await startEmulator({ faults: '503=1' });
    const client = createClient({
      baseUrl: emulator.url,
      token: fixtures.tokens.admin,
      accountId: acme,
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
      onEvent: (e) => {
        if (e.type === 'retry') emulator!.setFaults(undefined);
      },
    });
    await client.call('createProject', { body: { accountId: acme, name: 'after-503', description: '' } });
    const projects = await client.call('listProjects', {});
    await client.close();
    expect(projects.filter((p) => p.name === 'after-503')).toHaveLength(1);
    expect(emulator.stats()).toMatchObject({ writes: 1, byOperation: { createProject: 2 } });
  });

  it('receives no request at all when a Service Account client refuses a human-only operation', async () => {
    emulator = await startEmulator();
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.serviceAccount, accountId: acme });
    await expect(client.call('createProject', { body: { accountId: acme, name: 'no', description: '' } })).rejects.toMatchObject({
      name: 'IdentityRefusedError',
    });
    await client.close();
    expect(emulator.stats().requests).toBe(0);
  });

  it('adds latency to every request (setLatency at run time)', async () => {
    emulator = await startEmulator();
    emulator.setLatency(120);
    const started = performance.now();
    await fetch(`${emulator.url}/v1/providers`, { headers });
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('parses the spec string and explains a bad one', () => {
    expect(parseFaultSpec('429=0.05,500=0.05,503=0.1,drop=0.1,seed=42,latency=5')).toEqual({
      status: { 429: 0.05, 500: 0.05, 503: 0.1 },
      drop: 0.1,
      seed: 42,
      latencyMs: 5,
    });
    expect(() => parseFaultSpec('502=0.1')).toThrow('unknown fault "502": use 429, 500, 503, drop, latency or seed');
    expect(() => parseFaultSpec('503=2')).toThrow('fault 503=2: a fraction between 0 and 1 is expected');
    expect(() => parseFaultSpec('503')).toThrow('invalid fault "503": expected NAME=NUMBER, e.g. 503=0.1');
    expect(() => parseFaultSpec('500=0.6,503=0.6')).toThrow('the status fault fractions add up to 1.2, more than 1');
  });
});
