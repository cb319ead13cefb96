// A renewal's overlap is cut short when a token must stop working now: `--replace` (a leak) revokes the current
// token and the one still in its overlap in the same apply, leaving only the newly issued one; removing the token
// from the configuration revokes it together with what it superseded.
// The renewal comes from the configuration-wide default `defaults.tokens.renewBeforeDays`.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

let w: World;
let gatewayId: string;
const renewing = `defaults:\n  tokens: { renewBeforeDays: 7 }\n${smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 30')}`;
const tokenId = () =>
  (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { id: string }> }).resources['gateway_token.main/ci']?.id;
const activeIds = async () =>
  (await w.client.listAll('listGatewayTokens', { path: { id: gatewayId } }))
    .filter((t) => !t.revoked_at)
    .map((t) => t.token_id)
    .sort();

// Each test arranges its own world: the token issued 25 days ago and renewed now (its old one in its overlap), by
// applies run in-process (the CLI's entry, no subprocess); the step under test runs the real CLI.
beforeEach(async () => {
  w = await world({ clockOffset: '-25d' });
  w.config(renewing);
  expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
  gatewayId = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!.gateway_id;
  w.emulator.setClockOffset(0);
  expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
});
afterEach(async () => w.close());

describe('a renewal cut short', () => {
  it(
    '--replace during the overlap revokes the old and the current token at once; only the new one works',
    { timeout: 90_000 },
    async () => {
      expect(await activeIds()).toHaveLength(2);
      const plan = await w.cli(['plan', w.dir, '--replace', 'gateway_token.main/ci']);
      expect(plan.stdout).toContain(
        '# gateway_token.main/ci must be replaced (--replace asks for a new one: a new one is created, then the old one is revoked)',
      );
      expect(plan.stdout).toContain('- revoke superseded token = "');
      const applied = await w.cli(['apply', w.dir, '--auto-approve', '--replace', 'gateway_token.main/ci']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(await activeIds()).toEqual([tokenId()]);
      const again = await w.cli(['plan', w.dir, '--detailed-exitcode']);
      expect(again.code).toBe(0);
      expect(again.stdout).not.toContain('Superseded');
    },
  );

  it('removing a token in its overlap revokes it with the one it superseded', { timeout: 90_000 }, async () => {
    // The story so far: the renewal cut short by --replace (in-process).
    const replaced = await w.run(['apply', w.dir, '--auto-approve', '--replace', 'gateway_token.main/ci']);
    if (replaced.code !== 0) throw new Error(`the --replace apply failed: ${replaced.stderr}`);
    // A second renewal, so that a superseded token is waiting again.
    w.emulator.moveClock('24d');
    expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    expect(await activeIds()).toHaveLength(2);

    w.config(renewing.replace(/ {4}tokens:\n {6}ci:\n[^]*$/, ''));
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await activeIds()).toEqual([]);
    expect(tokenId()).toBeUndefined();
  });
});
