// A gateway token issued to the Service Account `ci-deployer`, with a spend limit: apply creates it for the
// Service Account, the live token says so (read with `cplane api`), a second plan has nothing to do, `cplane
// output` reveals its sealed plaintext as for any token; an inactive or mistyped Service Account is a plan
// error at the `serviceAccount:` value, and changing the spend limit replaces the token (new one first).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { acme, shopGateway, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts.find((s) => s.name === 'ci-deployer')!;

const withToken = (serviceAccount: string, spendLimit = '25.00') => `${shopGateway}    tokens:
      checkout:
        scopes: [run]
        serviceAccount: ${serviceAccount}
        spendLimit: "${spendLimit}"
        spendWindow: weekly
`;

/** The line and column of `text` in the configuration, 1-based, as diagnostics give them. */
function positionOf(yaml: string, text: string): string {
  const before = yaml.slice(0, yaml.indexOf(text)).split('\n');
  return `main.yaml:${before.length}:${before.at(-1)!.length + 1}`;
}

let w: World;
let gatewayId: string;

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(withToken('ci-deployer'));
  const applied = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  gatewayId = (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { id: string }> }).resources['gateway.main']!
    .id;
});
afterAll(async () => w.close());

describe('a token issued to a Service Account with a spend limit', () => {
  it('is live as the Service Account`s token, with its spend limit and window', async () => {
    const listed = await w.cli(['api', 'listGatewayTokens', '--param', `id=${gatewayId}`]);
    expect(listed.code).toBe(0);
    const [token] = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(token).toMatchObject({
      name: 'checkout',
      principal_type: 'service_account',
      service_account_id: ciDeployer.id,
      owner_user_id: null,
      spend_limit: '25.00',
      spend_window: 'weekly',
    });
  });

  it('plans no changes after apply, reading the Service Accounts once', async () => {
    const before = w.emulator.stats().byOperation.listServiceAccounts;
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(w.emulator.stats().byOperation.listServiceAccounts - before).toBe(1);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes. Your infrastructure matches the configuration.');
    expect(plan.code).toBe(0);
  });

  it('plans no change when the configuration names the same Service Account by its id', async () => {
    w.config(withToken(ciDeployer.id));
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes. Your infrastructure matches the configuration.');
    expect(plan.code).toBe(0);
    w.config(withToken('ci-deployer'));
  });

  it('has its one-time plaintext sealed in state, revealed by cplane output', async () => {
    const output = await w.cli(['output', 'gateway_token.main/checkout', w.dir, '--reveal']);
    expect(output.code).toBe(0);
    expect(output.stdout).toMatch(/^gwt_[A-Za-z0-9]{40}\n$/);
  });

  it('is replaced, the new token first, when its spend limit changes', async () => {
    w.config(withToken('ci-deployer', '40.00'));
    const plan = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as {
      steps: {
        address: string;
        action: string;
        changes: { path: string; before: unknown; after: unknown; forcesReplace?: boolean }[];
        writes: { operation: string }[];
      }[];
    };
    const step = plan.steps.find((s) => s.address === 'gateway_token.main/checkout')!;
    expect(step.action).toBe('replace');
    expect(step.changes).toContainEqual({ path: 'spendLimit', before: '25.00', after: '40.00', forcesReplace: true });
    expect(step.writes.map((x) => x.operation)).toEqual(['createGatewayToken', 'revokeGatewayToken']);
  });
});

describe('a Service Account that cannot be used', () => {
  it('is a plan error naming the inactive legacy-bot at its file:line:col', async () => {
    const yaml = withToken('legacy-bot').replace('checkout:', 'legacy:');
    w.config(yaml);
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(positionOf(yaml, 'legacy-bot'));
    expect(plan.stderr).toContain('the Service Account "legacy-bot" is inactive');
  });

  it('suggests ci-deployer for a typo', async () => {
    const yaml = withToken('ci-deployr').replace('checkout:', 'typo:');
    w.config(yaml);
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(positionOf(yaml, 'ci-deployr'));
    expect(plan.stderr).toMatch(/no Service Account "ci-deployr" in account [0-9a-f-]+; did you mean "ci-deployer"\?/);
  });
});
