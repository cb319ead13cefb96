// An expired gateway token is never "No changes": it is drift, the plan replaces it (the new token first), and
// `cplane output` says it has expired. Time passes by moving the emulator's clock, never by waiting.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

const DAY = 86_400_000;
let w: World;
let gatewayId: string;
let firstTokenId: string;

const tokenIn = (statePath: string) =>
  (JSON.parse(readFileSync(statePath, 'utf8')) as { resources: Record<string, { id: string; outputs?: Record<string, string> }> })
    .resources['gateway_token.main/ci']!;
const tokensLive = async () => w.client.listAll('listGatewayTokens', { path: { id: gatewayId } });

// Each test arranges its own world, applied in-process (the CLI's entry, no subprocess); the step under test runs
// the real CLI. A test past the expiry moves the clock itself.
beforeEach(async () => {
  // The token is made three days ago (by the emulator's clock), to live one day.
  w = await world({ clockOffset: '-3d' });
  w.config(smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 1'));
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  firstTokenId = tokenIn(w.statePath).id;
  gatewayId = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!.gateway_id;
});
afterEach(async () => w.close());

/** The emulator's clock at today's date: the token expired two days ago. */
const expired = () => w.emulator.setClockOffset(0);

describe('an expired gateway token', () => {
  it("is replaced once this machine's clock passes its expiry, though the API's clock (three days behind) has not, with a warning naming both", async () => {
    // What ends access takes the earlier deadline of the two clocks (planner/stages/clocks.ts; test/e2e/server-clock.test.ts).
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      '# gateway_token.main/ci must be replaced (it expired 2 days ago: a new one is created, then the old one is revoked)',
    );
    expect(plan.stdout).toMatch(
      /! the API's clock said \d{4}-\d\d-\d\d \d\d:\d\d UTC and this machine's \d{4}-\d\d-\d\d \d\d:\d\d UTC, more than 5 minutes apart/,
    );
  });

  it('is drift and replaced once the clock reaches its expiry; --detailed-exitcode exits 2', async () => {
    w.emulator.setClockOffset(0);
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/~ gateway_token\.main\/ci expired 2 days ago\n/);
    expect(plan.stdout).toContain(
      '# gateway_token.main/ci must be replaced (it expired 2 days ago: a new one is created, then the old one is revoked)',
    );
    expect(plan.stdout).toMatch(/~ expiresAt = "[0-9T:.-]+Z" {2}\(expired 2 days ago\) {2}# forces replacement/);
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 1 to replace, 0 to remove.');
  });

  it('is marked EXPIRED by cplane output', async () => {
    expired();
    const output = await w.cli(['output', w.dir]);
    expect(output.code).toBe(0);
    expect(output.stdout).toMatch(
      /^gateway_token\.main\/ci = \(sensitive: use --reveal\) {2}\[id [0-9a-f-]+, prefix [^,]+, EXPIRED 2 days ago: cplane apply replaces it\]\n$/,
    );
    const json = JSON.parse((await w.cli(['output', w.dir, '--json'])).stdout) as Record<string, { expiry: string; expiresAt: string }>;
    expect(json['gateway_token.main/ci']!.expiry).toBe('expired');
    expect(Date.parse(json['gateway_token.main/ci']!.expiresAt)).toBeLessThan(Date.now() - DAY);
  });

  it('is replaced by apply: a new token is created before the old one is revoked, and then there is nothing to do', async () => {
    expired();
    const planned = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as {
      steps: { address: string; writes: { operation: string }[] }[];
    };
    expect(planned.steps.find((s) => s.address === 'gateway_token.main/ci')!.writes.map((x) => x.operation)).toEqual([
      'createGatewayToken',
      'revokeGatewayToken',
    ]);

    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('apply: gateway_token.main/ci: replaced id=');

    const tokens = await tokensLive();
    const active = tokens.filter((t) => !t.revoked_at);
    expect(active).toHaveLength(1);
    expect(active[0]!.token_id).not.toBe(firstTokenId);
    expect(Date.parse(active[0]!.expires_at!)).toBeGreaterThan(Date.now());
    expect(tokens.find((t) => t.token_id === firstTokenId)!.revoked_at).not.toBeNull();
    expect(tokenIn(w.statePath).id).toBe(active[0]!.token_id);

    const again = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('says, in cplane output, when the new token expires', async () => {
    expired();
    const replaced = await w.run(['apply', w.dir, '--auto-approve']);
    expect(replaced.code, replaced.stderr).toBe(0);
    const output = await w.cli(['output', w.dir]);
    expect(output.stdout).toMatch(/, expires in (24 hours|1 day)\]\n$/);
  });
});
