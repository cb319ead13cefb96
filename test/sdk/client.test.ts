// The SDK's own client and its errors, against the emulator on 127.0.0.1 (and a hostile API in front of it): the
// account found when none is given, and every refusal worded for an application (what is missing, who acts, never
// a cplane command), with a stable code, and with the server's text cleaned before it is quoted.
import type { ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountError, ApiError, createClient, discoverAccount, readRecordFields, readSecret, type Client } from '@cplane/sdk';
import { fixtures, withEmulator } from '../helpers/emulator.js';
import { hostileProxy, type HostileProxy } from '../e2e/helpers.js';

const emulator = withEmulator();
const [acme, staging] = fixtures.accounts as [{ id: string; name: string }, { id: string; name: string }];
const recordId = '00000000-0000-4000-8000-000000000000';
const opened: (Client | HostileProxy)[] = [];
afterAll(async () => {
  for (const thing of opened) await thing.close();
});
const clientOf = (token: string, baseUrl = emulator().url, accountId?: string): Client => {
  const client = createClient({ baseUrl, token, accountId, retry: { maxAttempts: 1 } });
  opened.push(client);
  return client;
};
/** A hostile API answering `path` (and forwarding the rest to the emulator). */
async function lyingApi(path: RegExp, write: (res: ServerResponse) => void): Promise<string> {
  const proxy = await hostileProxy(emulator().url, (req, _body, res) => {
    if (!path.test(req.url ?? '')) return false;
    write(res);
    return true;
  });
  opened.push(proxy);
  return proxy.url;
}
const json = (status: number, body: unknown) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_lying' });
  res.end(JSON.stringify(body));
};
const noCliAdvice = (error: unknown) => expect((error as Error).message).not.toMatch(/cplane |--[a-z]/);

describe('the account, when none is given', () => {
  it('is the only account of a personal access token (GET /accounts)', async () => {
    expect(await discoverAccount(clientOf(fixtures.tokens.reader))).toBe(acme.id);
  });

  it('is not guessed among several: refused with ACCOUNT_AMBIGUOUS, naming them', async () => {
    const error = await readRecordFields(clientOf(fixtures.tokens.admin), recordId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccountError);
    expect(error).toMatchObject({
      code: 'ACCOUNT_AMBIGUOUS',
      message: `The token can act in 2 accounts (${acme.name} (${acme.id}), ${staging.name} (${staging.id})), so which one holds the record is not known: give accountId.`,
    });
    noCliAdvice(error);
  });

  it("is the Service Account's own: no GET /accounts (human-only), and no x-account-id", async () => {
    expect(await discoverAccount(clientOf(fixtures.tokens.serviceAccount))).toBeUndefined();
    // The emulator takes the Service Account's account: the record is looked up there (and is not found).
    await expect(readRecordFields(clientOf(fixtures.tokens.serviceAccount), recordId)).rejects.toMatchObject({
      name: 'ApiError',
      status: 404,
    });
  });

  it('is refused with ACCOUNT_REQUIRED by an API that wants the header, and ACCOUNT_NONE for a token in no account', async () => {
    const wantsHeader = await lyingApi(/\/read$/, json(400, { ok: false, error: { code: 'bad_request', message: 'account_id_required' } }));
    await expect(readRecordFields(clientOf(fixtures.tokens.serviceAccount, wantsHeader), recordId)).rejects.toMatchObject({
      name: 'AccountError',
      code: 'ACCOUNT_REQUIRED',
      message: expect.stringContaining('give accountId'),
    });
    const noAccounts = await lyingApi(/\/accounts$/, json(200, { ok: true, data: [] }));
    await expect(discoverAccount(clientOf(fixtures.tokens.reader, noAccounts))).rejects.toMatchObject({
      code: 'ACCOUNT_NONE',
      message: expect.stringContaining('ask an admin of the account'),
    });
  });
});

describe('refusals, worded for an application', () => {
  it('a token the API does not know: 401, an admin issues a valid one', async () => {
    const error = await readRecordFields(clientOf('sk-svc-sa-unknown-token', emulator().url, acme.id), recordId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, reason: 'invalid_pat' });
    expect((error as Error).message).toMatch(
      /^readRecord failed: the control-plane API answered 401 .*request id req_[0-9a-f-]+\. The token is missing, invalid or expired: the application needs a valid Service Account token from an admin of the account\.$/,
    );
    expect((error as Error).message).not.toContain('sk-svc-sa-unknown-token');
    noCliAdvice(error);
  });

  it('an inactive Service Account: 403, an admin activates it', async () => {
    const error = await readRecordFields(clientOf(fixtures.tokens.inactiveServiceAccount, emulator().url, acme.id), recordId).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      status: 403,
      reason: 'service_account_inactive',
      message: expect.stringContaining('ask an admin of the account to activate it'),
    });
  });

  it("an answer of the wrong shape is refused by field, and the server's text is cleaned before it is quoted", async () => {
    const wrongShape = await lyingApi(/\/read$/, json(200, { ok: true, data: { fields: { version: 1, ciphertext: 7, wrapper: {} } } }));
    await expect(readRecordFields(clientOf(fixtures.tokens.serviceAccount, wrongShape), recordId)).rejects.toMatchObject({
      code: 'invalid_response',
      message: expect.stringContaining('fields.ciphertext is not a string'),
    });
    const hostileText = await lyingApi(
      /\/read$/,
      json(403, { ok: false, error: { code: 'forbidden', message: `no\u001b[2J\u202eaccess${'x'.repeat(500)}` } }),
    );
    const error = (await readRecordFields(clientOf(fixtures.tokens.serviceAccount, hostileText), recordId).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toContain('(no?[2J?accessxxx');
    for (const character of ['\u001b', '\u202e']) expect(error.message).not.toContain(character);
    expect(error.message).not.toContain('x'.repeat(300));
  });

  it('no writer key: WRAP_UNTRUSTED_WRITER before anything is sent; plain http to another machine: refused before the token leaves', async () => {
    await expect(
      readSecret(clientOf(fixtures.tokens.serviceAccount), { recordId, privateKey: new Uint8Array(32), writerKeys: [] }),
    ).rejects.toMatchObject({ code: 'WRAP_UNTRUSTED_WRITER' });
    expect(() => createClient({ baseUrl: 'http://api.example.com', token: fixtures.tokens.serviceAccount })).toThrow(
      /^refusing to send the API token over plain http to api\.example\.com: use https/,
    );
  });
});
