// Reads the API refuses are reported per resource with the reason and request id; a bad token ends the plan.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { eachTestHarness, fullConfig } from './harness.js';

describe('read errors', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });

  it('lists every resource it was refused, with the API reason and request id, and plans nothing for them', async () => {
    // Gus is an admin of another account: every read in this one is refused.
    const outsider = createClient({ baseUrl: h().emulator.url, token: fixtures.tokens.otherAccountAdmin, accountId: h().state.data.account });
    try {
      const plan = await h().plan({ client: outsider });
      expect(plan.steps).toEqual([]);
      const project = plan.unreadable.find((u) => u.address === 'project.payments');
      expect(project).toMatchObject({ kind: 'project', operation: 'listProjects', reason: '403 not_account_member' });
      expect(project?.requestId).toMatch(/\S+/);
      expect(plan.unreadable.filter((u) => u.address).map((u) => u.address).sort()).toEqual([
        'credential.openai', 'gateway.prod', 'gateway_token.prod/ci', 'otel_export.prod', 'project.payments', 'record.payments/stripe-key',
      ]);
    } finally {
      await outsider.close();
    }
  });

  it('ends with the API error when the token is not valid', async () => {
    // The API's refusals as the user reads them: the message is the subject, so in-process.
    const result = await h().run(['plan'], { CPLANE_TOKEN: 'sk-svc-pat-not-a-real-token' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: \w+ failed: 401 unauthorized \(invalid_pat\), request id \S+\. Check CPLANE_TOKEN: it must be a valid, unexpired token\.\n$/);
  });

  it('ends with a clear message when the API does not answer', async () => {
    // A refused connection is retried with backoff; the request's deadline (CPLANE_REQUEST_TIMEOUT, retries included)
    // ends the plan within 0.05 s instead of after every backoff. Retries running out are tested in test/api/client-transport.test.ts.
    const result = await h().run(['plan'], { CPLANE_BASE_URL: 'http://127.0.0.1:1', CPLANE_REQUEST_TIMEOUT: '0.05' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: \w+: no complete answer from the API within 0\.05 s .*set CPLANE_REQUEST_TIMEOUT in seconds to change it\)\. Check CPLANE_BASE_URL and the network, then run the command again\.\n$/);
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
