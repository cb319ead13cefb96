// The client's transport rules, observed from the server side: which requests are retried, with
// which key and bytes, how long it waits, and what never leaves the client. A scripted HTTP server
// records every request exactly as it arrived; the behaviour against the emulator is in test/emulator.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  createClient,
  defaultRetryPolicy,
  IdentityRefusedError,
  ListTooLargeError,
  NetworkError,
  type ClientEvent,
  type ListLimits,
} from '../../src/api/index.js';
import { backoffDelay } from '@cplane/sdk/internal/retry';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Reply = (res: ServerResponse, seen: Seen) => void;

const ok =
  (data: unknown): Reply =>
  (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-ok' });
    res.end(JSON.stringify({ ok: true, data }));
  };
const fail =
  (status: number, code: string, message: string, headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ ok: false, error: { code, message }, requestId: `req-${status}` }));
  };
const drop: Reply = (res) => res.socket?.destroy();

let server: Server | undefined;

/** Starts a server that answers the n-th request with replies[n] (the last reply repeats). */
async function scripted(replies: Reply[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      const reply = replies[Math.min(seen.length - 1, replies.length - 1)]!;
      reply(res, entry);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const PAT = 'sk-svc-pat-transport-test-token';
const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const fast = { baseDelayMs: 1, maxDelayMs: 2 };
const project = { accountId: ACCOUNT, name: 'payments', description: 'Payment services' };

describe('API client transport', () => {
  it('retries a write after 503 with the same Idempotency-Key and the exact same body bytes', async () => {
    const { url, seen } = await scripted([
      fail(503, 'service_unavailable', 'Service temporarily unavailable'),
      drop,
      ok({ project_id: ACCOUNT }),
    ]);
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, retry: fast });
    const result = await client.call('createProject', { body: project }, { idempotencyKey: 'key-1' });
    await client.close();

    expect(result).toEqual({ project_id: ACCOUNT });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.headers['idempotency-key']))).toEqual(new Set(['key-1']));
    expect(new Set(seen.map((s) => s.body))).toEqual(new Set([JSON.stringify(project)]));
    expect(seen[0]!.url).toBe('/v1/projects');
    expect(seen[0]!.headers['x-account-id']).toBe(ACCOUNT);
    expect(seen[0]!.headers['authorization']).toBe(`Bearer ${PAT}`);
  });

  it('gives every write an Idempotency-Key, so a dropped response is retried safely', async () => {
    const { url, seen } = await scripted([drop, ok({ project_id: ACCOUNT })]);
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, retry: fast });
    await client.call('createProject', { body: project });
    await client.close();
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
  });

  it.each([
    [400, 'bad_request', 'Request validation failed'],
    [401, 'unauthorized', 'invalid_pat'],
    [403, 'forbidden', 'not_authorized'],
    [404, 'not_found', 'project_not_found'],
    [409, 'conflict', 'idempotency_key_reused_with_different_params'],
  ])('never retries %i', async (status, code, reason) => {
    const { url, seen } = await scripted([fail(status, code, reason)]);
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, retry: fast });
    const error = await client.call('getProject', { path: { id: ACCOUNT } }).catch((e: unknown) => e);
    await client.close();
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status, code, reason, requestId: `req-${status}`, attempts: 1 });
    expect((error as Error).message).toContain(`getProject failed: ${status} ${code} (${reason})`);
    expect((error as Error).message).toContain(`request id req-${status}`);
  });

  it('retries 429, 500 and 503 up to the bounded number of attempts, then reports them', async () => {
    const { url, seen } = await scripted([
      fail(429, 'rate_limited', 'Too many requests'),
      fail(500, 'internal_error', 'boom'),
      fail(503, 'service_unavailable', 'down'),
    ]);
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, retry: { ...fast, maxAttempts: 4 } });
    const error = await client.call('listProviders', {}).catch((e: unknown) => e);
    await client.close();
    expect(seen).toHaveLength(4);
    expect(error).toMatchObject({ name: 'ApiError', status: 503, attempts: 4 });
  });

  it('honours Retry-After instead of its own backoff', async () => {
    // Its own backoff here would wait 30 s; the server's Retry-After: 0 wins, so the retry is sent at once.
    const { url, seen } = await scripted([fail(429, 'rate_limited', 'Too many requests', { 'retry-after': '0' }), ok([])]);
    const events: ClientEvent[] = [];
    const slow = { baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0.5 };
    const client = createClient({ baseUrl: url, token: PAT, retry: slow, onEvent: (e) => events.push(e) });
    await client.call('listProviders', {});
    await client.close();
    expect(seen).toHaveLength(2);
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      { type: 'retry', operation: 'listProviders', attempt: 1, delayMs: 0, status: 429, reason: 'Too many requests' },
    ]);
    // The delay the client waits for a header in seconds, computed as above without waiting for it.
    expect(backoffDelay({ ...defaultRetryPolicy, ...slow }, 1, '1')).toBe(1000);
    expect(backoffDelay({ ...defaultRetryPolicy, ...slow }, 1, '120')).toBe(60_000);
  });

  it('retries a connection failure for a GET but reports it as a NetworkError when attempts run out', async () => {
    const { url, seen } = await scripted([drop]);
    const client = createClient({ baseUrl: url, token: PAT, retry: { ...fast, maxAttempts: 3 } });
    const error = await client.call('listProviders', {}).catch((e: unknown) => e);
    await client.close();
    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(NetworkError);
    // The whole message, as the CLI prints it after "Error: " (test/planner/read-errors.test.ts checks that rendering
    // with the deadline's form of the same error, so it needs no wait for the backoff of a refused connection).
    expect((error as Error).message).toMatch(
      /^listProviders: no answer from the API after 3 attempt\(s\) \(.+\)\. Check CPLANE_BASE_URL and the network, then run the command again\.$/,
    );
  });

  it('refuses a human-only operation with a Service Account token before sending anything', async () => {
    const { url, seen } = await scripted([ok([])]);
    const client = createClient({ baseUrl: url, token: 'sk-svc-sa-robot', accountId: ACCOUNT });
    const error = await client.call('createProject', { body: project }).catch((e: unknown) => e);
    await client.call('listProviders', {});
    await client.close();
    expect(error).toBeInstanceOf(IdentityRefusedError);
    expect((error as Error).message).toBe(
      'createProject (POST /projects) is a human-only operation and the token is a Service Account token (sk-svc-sa-); no request was sent. Use a personal access token (sk-svc-pat-) for this command.',
    );
    expect(seen.map((s) => s.url)).toEqual(['/v1/providers']);
  });

  it('never puts the token in a URL or an error message', async () => {
    const { url, seen } = await scripted([fail(401, 'unauthorized', 'invalid_pat')]);
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT });
    const error = (await client.call('listProjects', { query: { includeArchived: true } }).catch((e: unknown) => e)) as Error;
    await client.close();
    expect(seen[0]!.url).toBe('/v1/projects?includeArchived=true');
    expect(seen[0]!.url).not.toContain(PAT);
    expect(error.message).not.toContain(PAT);
    expect(JSON.stringify(error)).not.toContain(PAT);
  });

  it('checks a success body against the result schema and names the operation and the field', async () => {
    const { url } = await scripted([
      ok([{ provider_id: 'x', name: { not: 'a string' }, display_name: 'X', default_base_url: 'https://x', models: [] }]),
    ]);
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT });
    const error = await client.call('listProviders', {}).catch((e: unknown) => e);
    await client.close();
    expect(error).toMatchObject({ name: 'ApiError', code: 'invalid_response', operation: 'listProviders' });
    expect((error as Error).message).toMatch(
      /^listProviders failed: 200 invalid_response \(the answer does not match the API spec: field 0\.name: Expected string\)/,
    );
  });

  it('reads every page from offset 0 until a short page', async () => {
    const items = Array.from({ length: 5 }, (_, i) => ({
      project_id: `p${i}`,
      account_id: ACCOUNT,
      name: `n${i}`,
      description: '',
      is_active: true,
      archived: false,
      archived_at: null,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    }));
    const page: Reply = (res, seen) => {
      const q = new URL(seen.url, 'http://x').searchParams;
      const offset = Number(q.get('offset'));
      ok(items.slice(offset, offset + Number(q.get('limit'))))(res, seen);
    };
    const { url, seen } = await scripted([page]);
    const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT });
    const all = await client.listAll('listProjects', {}, { pageSize: 2 });
    await client.close();
    expect(all).toEqual(items);
    expect(seen.map((s) => s.url)).toEqual([
      '/v1/projects?limit=2&offset=0',
      '/v1/projects?limit=2&offset=2',
      '/v1/projects?limit=2&offset=4',
    ]);
  });

  it('stops a list that never ends at its bound of pages, objects or bytes, naming the operation and the bound', async () => {
    const row = (i: number) => ({
      project_id: `p${i}`,
      account_id: ACCOUNT,
      name: `n${i}`,
      description: '',
      is_active: true,
      archived: false,
      archived_at: null,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    });
    // Always a full page: the walk would never end.
    const endless: Reply = (res, seen) => {
      const q = new URL(seen.url, 'http://x').searchParams;
      ok(Array.from({ length: Number(q.get('limit')) }, (_, i) => row(Number(q.get('offset')) + i)))(res, seen);
    };
    const { url, seen } = await scripted([endless]);
    const walk = async (listLimits: Partial<ListLimits>) => {
      const client = createClient({ baseUrl: url, token: PAT, accountId: ACCOUNT, listLimits });
      const error = await client.listAll('listProjects', {}, { pageSize: 2 }).catch((e: unknown) => e);
      await client.close();
      return error;
    };
    const pages = await walk({ pages: 3 });
    expect(pages).toBeInstanceOf(ListTooLargeError);
    expect((pages as Error).message).toBe(
      'listProjects: the API kept answering this list past 3 pages, far more than any real account holds; reading stopped and nothing was written. Check CPLANE_BASE_URL: the server may be broken or not the control-plane API.',
    );
    expect(seen).toHaveLength(3);
    expect(await walk({ objects: 5 })).toMatchObject({ code: 'list_too_large', bound: 'objects', limit: 5 });
    expect(await walk({ bytes: 1000 })).toMatchObject({ code: 'list_too_large', bound: 'bytes', limit: 1000 });
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    // No answer before the client has 3 requests in flight: on a loaded machine requests may arrive further apart
    // than an answer takes, and the count would then depend on the machine's speed. Once 3 are in, each answer
    // takes 20 ms, so a client that sent more would be seen with more.
    let full!: () => void;
    const threeInFlight = new Promise<void>((resolve) => (full = resolve));
    const slow: Reply = (res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      if (inFlight === 3) full();
      void threeInFlight.then(() =>
        setTimeout(() => {
          inFlight--;
          ok([])(res, undefined as never);
        }, 20),
      );
    };
    const { url, seen } = await scripted([slow]);
    const client = createClient({ baseUrl: url, token: PAT, concurrency: 3 });
    await Promise.all(Array.from({ length: 10 }, () => client.call('listProviders', {})));
    await client.close();
    expect(seen).toHaveLength(10);
    expect(most).toBe(3);
  });
});
