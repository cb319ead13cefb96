// Authentication, identity and account rules of the spec, observed over plain HTTP: what the server refuses
// on its own (so a hand-written request gets the same answer as one from the client).
import { describe, expect, it } from 'vitest';
import { fixtures, withEmulator } from '../helpers/emulator.js';

const emulator = withEmulator();
const [acme, staging, globex] = fixtures.accounts.map((a) => a.id) as [string, string, string];

interface Reply {
  status: number;
  body: { ok: boolean; data?: unknown; error?: { code: string; message: string; details?: string[] }; requestId?: string };
}

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Reply> {
  const res = await fetch(`${emulator().url}/v1${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Reply['body'] };
}

const as = (token: string, account?: string) => ({ authorization: `Bearer ${token}`, ...(account ? { 'x-account-id': account } : {}) });
const reason = (r: Reply) => [r.status, r.body.error?.code, r.body.error?.message];

describe('authentication', () => {
  it('answers 401 missing_bearer_token without a bearer, invalid_pat for an unknown token, pat_expired for an expired one', async () => {
    expect(reason(await call('GET', '/accounts'))).toEqual([401, 'unauthorized', 'missing_bearer_token']);
    expect(reason(await call('GET', '/accounts', { authorization: 'Basic abc' }))).toEqual([401, 'unauthorized', 'missing_bearer_token']);
    expect(reason(await call('GET', '/accounts', as('sk-svc-pat-nobody')))).toEqual([401, 'unauthorized', 'invalid_pat']);
    expect(reason(await call('GET', '/accounts', as('not-even-a-prefix')))).toEqual([401, 'unauthorized', 'invalid_pat']);
    expect(reason(await call('GET', '/accounts', as(fixtures.tokens.expired)))).toEqual([401, 'unauthorized', 'pat_expired']);
  });

  it('refuses a token in the query string, even a valid one, before authenticating', async () => {
    for (const query of [`?access_token=x`, `?token=x`, `?includeArchived=${fixtures.tokens.admin}`]) {
      const r = await call('GET', `/projects${query}`, as(fixtures.tokens.admin, acme));
      expect(reason(r)).toEqual([400, 'bad_request', 'token_in_query_string']);
    }
  });

  it('refuses a request carrying two identities', async () => {
    const both = await call('GET', '/providers', {
      ...as(fixtures.tokens.admin),
      'x-service-account-token': fixtures.tokens.serviceAccount,
    });
    expect(reason(both)).toEqual([400, 'bad_request', 'multiple_identities']);
    const twoBearers = await call('GET', '/providers', {
      authorization: `Bearer ${fixtures.tokens.admin}, Bearer ${fixtures.tokens.serviceAccount}`,
    });
    expect(reason(twoBearers)).toEqual([400, 'bad_request', 'multiple_identities']);
  });

  it('refuses two Authorization headers sent as separate lines', async () => {
    const { request } = await import('node:http');
    const url = new URL(emulator().url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/v1/providers', method: 'GET' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.setHeader('authorization', [`Bearer ${fixtures.tokens.admin}`, `Bearer ${fixtures.tokens.reader}`]);
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });
});

describe('Service Accounts', () => {
  it('may call a Service Account operation and is refused (403 not_authorized) on every human-only one', async () => {
    expect((await call('GET', '/providers', as(fixtures.tokens.serviceAccount))).status).toBe(200);
    expect((await call('GET', `/gateways/${fixtures.gateways[0]!.id}`, as(fixtures.tokens.serviceAccount, acme))).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', '/accounts', undefined],
      ['GET', '/projects', undefined],
      ['POST', '/projects', { accountId: acme, name: 'x', description: '' }],
      ['DELETE', `/gateways/${fixtures.gateways[0]!.id}`, undefined],
    ] as const) {
      const r = await call(method, path, as(fixtures.tokens.serviceAccount, acme), body);
      expect(reason(r), `${method} ${path}`).toEqual([403, 'forbidden', 'not_authorized']);
    }
    // Nothing was created by the refused write.
    const projects = await call('GET', '/projects', as(fixtures.tokens.admin, acme));
    expect((projects.body.data as { name: string }[]).some((p) => p.name === 'x')).toBe(false);
  });

  it('is refused on every operation while inactive', async () => {
    const r = await call('GET', '/providers', as(fixtures.tokens.inactiveServiceAccount));
    expect(reason(r)).toEqual([403, 'forbidden', 'service_account_inactive']);
  });

  it('works only inside its own account', async () => {
    const r = await call('GET', '/records', as(fixtures.tokens.serviceAccount, globex));
    expect(reason(r)).toEqual([403, 'forbidden', 'not_account_member']);
  });

  it('acts in its own account without x-account-id, and may not list accounts (account discovery is human-only)', async () => {
    const own = await call('GET', '/records', as(fixtures.tokens.serviceAccount));
    expect(own.status).toBe(200);
    const withHeader = await call('GET', '/records', as(fixtures.tokens.serviceAccount, acme));
    expect(own.body.data).toEqual(withHeader.body.data);
    expect((own.body.data as unknown[]).length).toBeGreaterThan(0);
    expect(reason(await call('GET', '/accounts', as(fixtures.tokens.serviceAccount)))).toEqual([403, 'forbidden', 'not_authorized']);
  });
});

describe('accounts', () => {
  it('lists only the accounts the caller is a member of', async () => {
    const r = await call('GET', '/accounts', as(fixtures.tokens.admin));
    expect((r.body.data as { account_id: string }[]).map((a) => a.account_id)).toEqual([acme, staging]);
  });

  it('requires x-account-id on account operations, and membership of that account', async () => {
    expect(reason(await call('GET', '/projects', as(fixtures.tokens.admin)))).toEqual([400, 'bad_request', 'account_id_required']);
    expect(reason(await call('GET', '/projects', as(fixtures.tokens.admin, 'acme')))).toEqual([
      400,
      'bad_request',
      'Request validation failed',
    ]);
    expect(reason(await call('GET', '/projects', as(fixtures.tokens.admin, globex)))).toEqual([403, 'forbidden', 'not_account_member']);
  });

  it('never lets accountId in a query or body select another account than the header', async () => {
    expect(reason(await call('GET', `/projects?accountId=${staging}`, as(fixtures.tokens.admin, acme)))).toEqual([
      403,
      'forbidden',
      'not_authorized',
    ]);
    const create = await call('POST', '/projects', as(fixtures.tokens.admin, acme), {
      accountId: staging,
      name: 'sneaky',
      description: '',
    });
    expect(reason(create)).toEqual([403, 'forbidden', 'not_authorized']);
  });

  it('denies an id of another account even when the caller is a member of both (never 404)', async () => {
    const stagingProject = fixtures.projects[2]!.id;
    expect((await call('GET', `/projects/${stagingProject}`, as(fixtures.tokens.admin, staging))).status).toBe(200);
    for (const path of [
      `/projects/${stagingProject}`,
      `/records/${fixtures.records[2]!.id}`,
      `/gateways/${fixtures.gateways[1]!.id}`,
      `/provider-credentials/${fixtures.credentials[2]!.id}/models`,
    ]) {
      expect(reason(await call('GET', path, as(fixtures.tokens.admin, acme))), path).toEqual([403, 'forbidden', 'not_authorized']);
    }
  });

  it('does not let a project id stand in for x-account-id', async () => {
    const r = await call('GET', `/records/by-project/${fixtures.projects[0]!.id}`, as(fixtures.tokens.admin));
    expect(reason(r)).toEqual([400, 'bad_request', 'account_id_required']);
  });
});

describe('permissions', () => {
  it('lets a reader read but not write (403 insufficient_permission)', async () => {
    expect((await call('GET', '/projects', as(fixtures.tokens.reader, acme))).status).toBe(200);
    const r = await call('PATCH', `/records/${fixtures.records[0]!.id}`, as(fixtures.tokens.reader, acme), { tags: ['x'] });
    expect(reason(r)).toEqual([403, 'forbidden', 'insufficient_permission']);
  });

  it('lets a record owner without the permission change their own record, and only it', async () => {
    const own = fixtures.records[1]!;
    expect((await call('PATCH', `/records/${own.id}`, as(fixtures.tokens.recordOwner, acme), { tags: ['mine'] })).status).toBe(200);
    const other = await call('PATCH', `/records/${fixtures.records[0]!.id}`, as(fixtures.tokens.recordOwner, acme), { tags: ['mine'] });
    expect(reason(other)).toEqual([403, 'forbidden', 'insufficient_permission']);
  });

  it('shows stored log bodies only with usage:read-bodies', async () => {
    const logs = await call('GET', `/gateways/${fixtures.gateways[0]!.id}/logs?limit=1`, as(fixtures.tokens.admin, acme));
    const logId = (logs.body.data as { log_id: string }[])[0]!.log_id;
    const withBodies = await call('GET', `/gateways/${fixtures.gateways[0]!.id}/logs/${logId}`, as(fixtures.tokens.admin, acme));
    expect(withBodies.body.data).toHaveProperty('request_body');
    const without = await call('GET', `/gateways/${fixtures.gateways[0]!.id}/logs/${logId}`, as(fixtures.tokens.serviceAccount, acme));
    expect(without.status).toBe(200);
    expect(without.body.data).not.toHaveProperty('request_body');
  });
});
