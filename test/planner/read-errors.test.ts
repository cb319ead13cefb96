// A bad token, or an account that refuses the token, ends the plan with the API's reason and request id.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { lyingProxy, withStatus, type Lie } from '../helpers/lying-proxy.js';
import { actions, eachTestHarness, fullConfig } from './harness.js';

describe('read errors', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });

  it('ends with one error naming the account when the account refuses the token itself (not a member), instead of an incomplete plan', async () => {
    // Gus is an admin of another account: the account refuses his token, so every read in it would be refused.
    // (Reads refused one by one are listed per resource: test/planner/service-account.test.ts.)
    const outsider = createClient({
      baseUrl: h().emulator.url,
      token: fixtures.tokens.otherAccountAdmin,
      accountId: h().state.data.account,
    });
    try {
      const refused = await h()
        .plan({ client: outsider })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toMatchObject({ name: 'ApiError', status: 403, reason: 'not_account_member', accountId: h().state.data.account });
      expect((refused as Error).message).toMatch(
        new RegExp(
          `^The API refuses this token in account ${h().state.data.account}: \\w+ answered 403 forbidden \\(not_account_member\\), request id \\S+; `,
        ),
      );
    } finally {
      await outsider.close();
    }
  });

  // The desired stage plans each kind once it is read (make-plan.ts, pacedByReads), while the other reads are in flight.
  const planThrough = async (lie: Lie) => {
    const proxy = await lyingProxy(h().emulator.url, lie);
    const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.admin, accountId: h().state.data.account });
    try {
      return await h().plan({ client });
    } finally {
      await Promise.all([client.close(), proxy.close()]);
    }
  };
  const tokensList = /^\/v1\/gateways\/[^/]+\/tokens$/;

  it("gives the same plan whichever kind is read last: a gateway's tokens answered after everything else", async () => {
    const id = (address: string) => h().state.data.resources[address]!.id;
    await h().client.call('updateRecord', { path: { id: id('record.payments/stripe-key') }, body: { tags: ['x'] } });
    await h().client.call('revokeGatewayToken', { path: { id: id('gateway.prod'), tokenId: id('gateway_token.prod/ci') } });
    const direct = await h().plan();
    const tokensLast = await planThrough(async (request) => {
      if (tokensList.test(request.path)) await new Promise((resolve) => setTimeout(resolve, 100));
      return undefined;
    });
    expect(actions(direct)).toEqual(['update record.payments/stripe-key', 'create gateway_token.prod/ci']);
    expect(actions(tokensLast)).toEqual(actions(direct));
    expect(tokensLast.drift).toEqual(direct.drift);
    expect(tokensLast.steps.map((s) => s.changes)).toEqual(direct.steps.map((s) => s.changes));
  });

  it('ends with the error of a read that fails after other kinds were planned, never an incomplete plan', async () => {
    const failed = await planThrough((request) =>
      tokensList.test(request.path)
        ? withStatus(400, { ok: false, error: { code: 'bad_request', message: 'broken' }, requestId: 'req-broken' })
        : undefined,
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ name: 'ApiError', status: 400, requestId: 'req-broken', operation: 'listGatewayTokens' });
  });

  it('ends with the API error when the token is not valid', async () => {
    // The API's refusals as the user reads them: the message is the subject, so in-process.
    const result = await h().run(['plan'], { CPLANE_TOKEN: 'sk-svc-pat-not-a-real-token' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: \w+ failed: 401 unauthorized \(invalid_pat\), request id \S+\. Check CPLANE_TOKEN: it must be a valid, unexpired token\.\n$/,
    );
  });

  it('ends with a clear message when the API does not answer', async () => {
    // A refused connection is retried with backoff; the request's deadline (CPLANE_REQUEST_TIMEOUT, retries included)
    // ends the plan within 0.05 s instead of after every backoff. Retries running out are tested in test/api/client-transport.test.ts.
    const result = await h().run(['plan'], { CPLANE_BASE_URL: 'http://127.0.0.1:1', CPLANE_REQUEST_TIMEOUT: '0.05' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: \w+: no complete answer from the API within 0\.05 s .*set CPLANE_REQUEST_TIMEOUT in seconds to change it\)\. Check CPLANE_BASE_URL and the network, then run the command again\.\n$/,
    );
  });

  it('a base URL with /v1 in it fails the plan (exit 1) and says what to check, instead of planning deletions', async () => {
    const result = await h().run(['plan'], { CPLANE_BASE_URL: `${h().emulator.url}/v1` });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('deleted outside cplane');
    expect(result.stderr).toMatch(/failed: 404 \w+ \(route_not_found\).*is CPLANE_BASE_URL the address without \/v1\?/);
  });

  it('a server that is not the API (200 with HTML) fails the plan with exit 1, not "No changes"', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await h().run(['plan', '--detailed-exitcode'], { CPLANE_BASE_URL: `http://127.0.0.1:${port}` });
      expect(result.code).toBe(1);
      expect(result.stdout).not.toContain('No changes');
      expect(result.stderr).toMatch(/failed: 200 invalid_response .*check that CPLANE_BASE_URL is the API's address/);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });
});
