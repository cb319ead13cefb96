// With a Service Account token, plan reads what a Service Account may read, plans that, lists what it could not
// read with the reason, and never sends a human-only request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, operations, type ApiClient, type ClientEvent } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { renderPlanText } from '../../src/render/index.js';
import { harness, type Harness } from './harness.js';

const production = fixtures.accounts[0]!.id;
const config = (tags: string, rate: number) => `
projects:
  sa-app:
    records:
      api-key:
        tags: [${tags}]
credentials:
  sa-openai:
    provider: openai
    secret: { env: OPENAI_KEY }
gateways:
  sa-gw:
    project: sa-app
    name: SA gateway
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [sa-openai]
    tokens:
      ci:
        scopes: [run]
        rateLimitPerMin: ${rate}
`;

describe('Service Account token', () => {
  let h: Harness;
  let sa: ApiClient;
  const events: ClientEvent[] = [];
  beforeEach(async () => {
    h = await harness({ account: production });
    h.config(config('a', 60));
    await h.converge();
    sa = createClient({
      baseUrl: h.emulator.url,
      token: fixtures.tokens.serviceAccount,
      accountId: production,
      onEvent: (e) => events.push(e),
    });
    h.emulator.resetStats();
  });
  afterEach(async () => {
    await sa.close();
    await h.close();
  });

  it('plans what it can read, lists the rest as unreadable, and sends no human-only request', async () => {
    h.config(config('a, b', 120));
    const plan = await h.plan({ client: sa });

    const sent = Object.entries(h.emulator.stats().byOperation)
      .filter(([, n]) => n > 0)
      .map(([op]) => op);
    expect(sent.filter((op) => operations[op as keyof typeof operations].identity === 'H')).toEqual([]);
    expect(sent.sort()).toEqual(['getGateway', 'listGatewayTokens', 'listProviders', 'listRecords']);
    expect(events.filter((e) => e.type === 'request').every((e) => e.type === 'request' && operations[e.operation].identity === 'SA')).toBe(
      true,
    );

    expect(plan.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['update record.sa-app/api-key', 'replace gateway_token.sa-gw/ci']);
    expect(plan.unreadable.map((u) => `${u.address ?? '*'} ${u.operation}`).sort()).toEqual([
      'credential.sa-openai listCredentials',
      'project.sa-app listProjects',
    ]);
    expect(plan.unreadable.find((u) => u.address === 'project.sa-app')?.reason).toBe(
      'human-only operation: a Service Account token cannot read it; no request was sent',
    );
    expect(renderPlanText(plan, { color: false })).toContain(
      'Could not be read (nothing is planned for these):\n  ! project.sa-app: listProjects: human-only operation',
    );
  });

  it('an incomplete plan never says "No changes", lists what it could not read, and --detailed-exitcode exits 3', async () => {
    const result = await h.cli(['plan', '--detailed-exitcode'], {
      CPLANE_TOKEN: fixtures.tokens.serviceAccount,
      CPLANE_ACCOUNT: production,
      OPENAI_KEY: 'sk-test-openai-0001',
    });
    expect(result.stdout).not.toContain('No changes');
    expect(result.stdout).toMatch(
      /^Plan incomplete: 2 items could not be read \((credential\.sa-openai|project\.sa-app), (credential\.sa-openai|project\.sa-app)\)/m,
    );
    expect(result.code).toBe(3);
  });

  it('an inactive Service Account is an authentication error (exit 1), not a list of unreadable items', async () => {
    // The errors are the subject here, not the process: in-process (Harness.run).
    const result = await h.run(['plan', '--detailed-exitcode'], {
      CPLANE_TOKEN: fixtures.tokens.inactiveServiceAccount,
      CPLANE_ACCOUNT: production,
      OPENAI_KEY: 'sk-test-openai-0001',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: The API refuses this token( in account \S+)?: \w+ answered 403 forbidden \(service_account_inactive\), .*the token's Service Account is inactive/,
    );
  });

  it('apply and destroy with a Service Account token stop before sending any request, naming the token needed', async () => {
    for (const verb of ['apply', 'destroy']) {
      const result = await h.run([verb, '--auto-approve'], {
        CPLANE_TOKEN: fixtures.tokens.serviceAccount,
        CPLANE_ACCOUNT: production,
        OPENAI_KEY: 'sk-test-openai-0001',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cplane ${verb} needs a personal access token (sk-svc-pat-)`);
    }
    expect(Object.values(h.emulator.stats().byOperation).reduce((a, b) => a + b, 0)).toBe(0);
  });
});
