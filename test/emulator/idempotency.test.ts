// Idempotency-Key: same key and same body replays the stored answer; a different body is 409; keys are
// per caller; answers are kept 24 hours by the emulator clock (a fake clock here); the store keeps
// hashes, not bodies, and a bounded number of answers.
import { afterEach, describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fixtures, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { IdempotencyStore, hashFingerprint } from '../../src/emulator/idempotency.js';

const acme = fixtures.accounts[0]!.id;
let emulator: RunningEmulator | undefined;
let clock = Date.parse('2026-03-01T12:00:00Z');

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start() {
  emulator = await startEmulator({ now: () => new Date(clock) });
  return emulator;
}

async function post(path: string, body: string, key: string | undefined, token = fixtures.tokens.admin) {
  const res = await fetch(`${emulator!.url}/v1${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'x-account-id': acme,
      'content-type': 'application/json',
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body,
  });
  return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') };
}

const projectBody = (name: string) => JSON.stringify({ accountId: acme, name, description: 'idempotency' });

async function projectNames(): Promise<string[]> {
  const res = await fetch(`${emulator!.url}/v1/projects?limit=200`, {
    headers: { authorization: `Bearer ${fixtures.tokens.admin}`, 'x-account-id': acme },
  });
  return ((await res.json()) as { data: { name: string }[] }).data.map((p) => p.name);
}

describe('Idempotency-Key', () => {
  it('replays the same status and body for the same key and body, and creates one object', async () => {
    await start();
    const first = await post('/projects', projectBody('once'), 'key-1');
    const second = await post('/projects', projectBody('once'), 'key-1');
    expect(first.status).toBe(200);
    expect(second).toEqual({ status: 200, text: first.text, replayed: 'true' });
    expect((await projectNames()).filter((n) => n === 'once')).toHaveLength(1);
    expect(emulator!.stats().writes).toBe(1);
  });

  it('answers 409 idempotency_key_reused_with_different_params for the same key with other body bytes', async () => {
    await start();
    await post('/projects', projectBody('first'), 'key-2');
    const reused = await post('/projects', projectBody('second'), 'key-2');
    expect(reused.status).toBe(409);
    expect(JSON.parse(reused.text).error).toEqual({ code: 'conflict', message: 'idempotency_key_reused_with_different_params' });
    // Same JSON value, different bytes: still a different request.
    const spaced = await post('/projects', projectBody('first').replace(':', ': '), 'key-2');
    expect(spaced.status).toBe(409);
    expect(await projectNames()).not.toContain('second');
  });

  it('replays stored 4xx answers too, but not 5xx or 429', async () => {
    await start();
    const bad = await post('/projects', JSON.stringify({ accountId: acme, name: '', description: '' }), 'key-3');
    expect(bad.status).toBe(400);
    expect(await post('/projects', JSON.stringify({ accountId: acme, name: '', description: '' }), 'key-3')).toMatchObject({
      status: 400,
      text: bad.text,
      replayed: 'true',
    });
  });

  it('keeps keys per caller: another user may use the same key', async () => {
    await start();
    const a = await post('/projects', projectBody('by-admin'), 'shared-key');
    const b = await post('/projects', projectBody('by-reader'), 'shared-key', fixtures.tokens.reader);
    expect(a.status).toBe(200);
    expect(b.status).toBe(403); // the reader's own answer, not a replay or a 409
    expect(b.replayed).toBeNull();
  });

  it('forgets an answer after 24 hours of the emulator clock', async () => {
    clock = Date.parse('2026-03-01T12:00:00Z');
    await start();
    await post('/projects', projectBody('day-one'), 'key-4');
    clock += 24 * 3600_000 - 1000;
    expect((await post('/projects', projectBody('day-one-other'), 'key-4')).status).toBe(409);
    clock += 1000;
    const later = await post('/projects', projectBody('day-two'), 'key-4');
    expect(later.status).toBe(200);
    expect(later.replayed).toBeNull();
    expect(await projectNames()).toEqual(expect.arrayContaining(['day-one', 'day-two']));
  });

  it('ignores the key on reads', async () => {
    await start();
    const res = await fetch(`${emulator!.url}/v1/projects`, {
      headers: { authorization: `Bearer ${fixtures.tokens.admin}`, 'x-account-id': acme, 'idempotency-key': 'k' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('Idempotency-Key memory', () => {
  // 64 requests, not 300: the same proof (bodies kept would be at least 64 MB, a hash each is bytes) in a fifth of
  // the traffic, so a loaded machine finishes it well inside the default timeout (300 took 17 s alone, 60 s loaded).
  it('keeps a hash of each request, not its body: a burst of 64 rejected 1 MiB keyed POSTs keeps less than 32 MB alive', async () => {
    await start();
    // A forced collection before each measure, so only what the store keeps is counted. Retained memory is the
    // JS heap plus memory outside it (Buffers); not RSS, which keeps freed pages as the allocator pleases.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const big = (i: number) => JSON.stringify({ accountId: acme, name: `big-${i}`, description: 'x'.repeat(1024 * 1024 - 200) });
    await post('/projects', big(-1), 'warm-up');
    gc();
    const retained = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const before = retained();
    for (let i = 0; i < 64; i++) {
      const answer = await post('/projects', big(i), `burst-${i}`);
      expect(answer.status).toBe(400);
    }
    // Buffers are freed by finalizers that run after a collection: collect, let them run, collect again.
    for (let round = 0; round < 3; round++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const grownMb = (retained() - before) / 1024 / 1024;
    // Half of what the 64 bodies alone would hold: a store that kept them could not pass.
    expect(grownMb).toBeLessThan(32);
    // The answers are still stored and replayed.
    expect((await post('/projects', big(7), 'burst-7')).replayed).toBe('true');
  });

  it('caps the number of stored answers, dropping the oldest first', () => {
    const store = new IdempotencyStore(3);
    for (const key of ['a', 'b', 'c', 'd'])
      store.store('p', key, { fingerprint: hashFingerprint(`POST /x\n${key}`), status: 200, body: key, storedAt: 0 });
    expect(['a', 'b', 'c', 'd'].map((key) => store.lookup('p', key, 0)?.body)).toEqual([undefined, 'b', 'c', 'd']);
  });
});
