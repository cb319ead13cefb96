// The emulator never crashes: each kind of malformed request gets the spec's error, then a few hundred
// seeded random malformed requests (bad JSON, wrong types, unknown and foreign ids, weird paths, huge
// bodies, broken HTTP) are answered with error envelopes, and a valid request still succeeds.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/api/index.js';
import { createPrng } from '../../src/emulator/prng.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';

const emulator = withEmulator();
const acme = fixtures.accounts[0]!.id;
const admin = { authorization: `Bearer ${fixtures.tokens.admin}`, 'x-account-id': acme };

async function send(method: string, path: string, body?: string, headers: Record<string, string> = admin) {
  const res = await fetch(`${emulator().url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return {
    status: res.status,
    requestId: res.headers.get('x-request-id'),
    json: JSON.parse(text) as { ok: boolean; error?: { code: string; message: string; details?: string[] } },
  };
}

describe('malformed requests', () => {
  it('bad JSON: 400 bad_request "Request validation failed" with details', async () => {
    const r = await send('POST', '/v1/projects', '{"accountId": ');
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual({ code: 'bad_request', message: 'Request validation failed', details: ['body: not valid JSON'] });
  });

  it('wrong types and unknown members: 400 with one detail per problem', async () => {
    const r = await send('POST', '/v1/projects', JSON.stringify({ accountId: 42, name: ['x'], description: '', colour: 'red' }));
    expect(r.status).toBe(400);
    expect(r.json.error?.details).toEqual(['body: unknown member "colour"', 'body/accountId: must be string', 'body/name: must be string']);
  });

  it('unknown ids: 404 not_found with the kind of object; malformed ids: 400', async () => {
    const r = await send('GET', '/v1/gateways/99999999-9999-4999-8999-999999999999');
    expect([r.status, r.json.error?.code, r.json.error?.message]).toEqual([404, 'not_found', 'gateway_not_found']);
    const bad = await send('GET', '/v1/gateways/gw-1');
    expect([bad.status, bad.json.error?.details]).toEqual([400, ['path: parameter "id" must be a uuid']]);
  });

  it('foreign account ids: 403 not_authorized', async () => {
    const r = await send('GET', `/v1/gateways/${fixtures.gateways[2]!.id}`);
    expect([r.status, r.json.error?.code, r.json.error?.message]).toEqual([403, 'forbidden', 'not_authorized']);
  });

  it('unknown paths and methods: 404 route_not_found, 405 method_not_allowed', async () => {
    expect((await send('GET', '/v1/nothing-here')).json.error).toEqual({ code: 'not_found', message: 'route_not_found' });
    expect((await send('GET', '/projects')).status).toBe(404);
    expect((await send('PUT', '/v1/projects')).status).toBe(405);
  });

  it('a body over 1 MiB: 413 request_body_too_large', async () => {
    const r = await send('POST', '/v1/projects', JSON.stringify({ accountId: acme, name: 'x'.repeat(1_100_000), description: '' }));
    expect([r.status, r.json.error?.message]).toEqual([413, 'request_body_too_large']);
  });

  it('survives a few hundred random malformed requests, then serves a valid one', async () => {
    const rng = createPrng(2024);
    const templates = Object.values(operations);
    const ids = [
      '99999999-9999-4999-8999-999999999999',
      fixtures.gateways[2]!.id,
      fixtures.projects[3]!.id,
      fixtures.records[0]!.id,
      fixtures.gateways[0]!.id,
      'not-a-uuid',
      '..',
      '%E0%A4%A',
      '%2F..%2F',
      'x'.repeat(3000),
      '',
    ];
    const bodies = [
      '{',
      'null',
      '[]',
      '"string"',
      '42',
      'true',
      '{"a":',
      '{"name":{"$gt":""}}',
      JSON.stringify({ accountId: 'x', name: 1 }),
      JSON.stringify({
        projectId: fixtures.projects[3]!.id,
        name: 'n',
        slug: 'ok',
        defaultProviderId: fixtures.providers[0]!.id,
        defaultModel: 'm',
        credentialIds: [],
      }),
      JSON.stringify({ scope: [], environment: 5 }),
      JSON.stringify({ archived: 'yes' }),
      '\u0000\u0001',
      '{"__proto__":{"polluted":true}}',
    ];
    const headerSets: Record<string, string>[] = [
      admin,
      {},
      { authorization: 'Bearer' },
      { authorization: `Bearer ${fixtures.tokens.admin}` },
      { ...admin, 'x-account-id': 'nope' },
      { ...admin, 'x-account-id': fixtures.accounts[2]!.id },
      { authorization: `Bearer ${fixtures.tokens.serviceAccount}`, 'x-account-id': acme },
      { ...admin, 'idempotency-key': 'fuzz' },
      { authorization: `Bearer ${fixtures.tokens.reader}`, 'x-account-id': acme },
    ];
    const methods = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'];
    const queries = [
      '',
      '?limit=abc',
      '?limit=-1&offset=x',
      '?includeArchived=maybe',
      '?limit=1&limit=2',
      '?a[b]=c',
      `?projectId=${ids[2]}`,
      '?outcome=%00',
    ];
    let answered = 0;
    for (let i = 0; i < 300; i++) {
      const template = rng.pick(templates);
      const path = '/v1' + template.path.replace(/\{\w+\}/g, () => encodeURIComponent(rng.pick(ids)).replace(/%25/g, '%'));
      const method = rng.next() < 0.7 ? template.method : rng.pick(methods);
      const body = method === 'GET' || method === 'OPTIONS' ? undefined : rng.pick(bodies);
      const res = await fetch(`${emulator().url}${path}${rng.pick(queries)}`, {
        method,
        headers: { 'content-type': 'application/json', ...rng.pick(headerSets) },
        body,
      });
      const text = await res.text();
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(() => JSON.parse(text)).not.toThrow();
      answered++;
    }
    expect(answered).toBe(300);

    // Broken HTTP on a raw socket is answered 400 and does not stop the server.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(emulator().url).port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();

    const valid = await send(
      'POST',
      '/v1/projects',
      JSON.stringify({ accountId: acme, name: 'after-the-storm', description: 'still alive' }),
    );
    expect(valid.status).toBe(200);
    expect(valid.json.ok).toBe(true);
  });
});
