// The CLI killed with SIGKILL in the middle of a renewal, right after the API answered the creation of the new
// token and before state recorded it: the next apply resends the saved write with its Idempotency-Key, so the
// account ends with exactly one new token, sealed in state; the old one still works until the overlap ends and
// is revoked only by an apply after it.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

const HOUR = 3_600_000;
let w: World;
let gatewayId: string;
let oldId: string;

interface StateFile {
  resources: Record<string, { id: string; superseded?: { id: string; revocableAt: string }[] }>;
}
const state = (): StateFile => JSON.parse(readFileSync(w.statePath, 'utf8')) as StateFile;
const tokensNamedCi = async () => (await w.client.listAll('listGatewayTokens', { path: { id: gatewayId } })).filter((t) => t.name === 'ci');

// Each test arranges its own world: the first apply runs in-process (the CLI's entry, no subprocess); the killed
// apply stays a real subprocess (in-process, SIGKILL would kill the runner); the step under test runs the real CLI.
beforeEach(async () => {
  w = await world({ clockOffset: '-25d' });
  w.config(smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 30\n        renewBeforeDays: 7'));
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  gatewayId = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!.gateway_id;
  oldId = state().resources['gateway_token.main/ci']!.id;
  w.emulator.setClockOffset(0);
});
afterEach(async () => w.close());

/** The renewal killed right after the API answered the new token's creation (a real subprocess). */
const killedApply = () => w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_TEST_KILL_AFTER_OPERATION: 'createGatewayToken' });
async function killed(): Promise<void> {
  const run = await killedApply();
  if (run.signal !== 'SIGKILL') throw new Error(`the apply was not killed: ${run.stderr}`);
}

describe('a renewal killed after the new token was created, before state recorded it', () => {
  it('is killed with the creation saved in the journal and the new token live but unrecorded', { timeout: 90_000 }, async () => {
    const run = await killedApply();
    expect(run.signal).toBe('SIGKILL');
    expect((await tokensNamedCi()).filter((t) => !t.revoked_at)).toHaveLength(2);
    // The plan knows the creation is pending: it will be resent first, not made again.
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stdout).toMatch(/gateway_token\.main\/ci: createGatewayToken will be resent first/);
    expect(plan.stdout).not.toContain('will be renewed');
  });

  it('converges on the next apply with exactly one new token, and the old one kept for the overlap', { timeout: 90_000 }, async () => {
    await killed();
    const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain('Took over the state lock');

    const tokens = await tokensNamedCi();
    // No duplicate: the old token and one new one, both working.
    expect(tokens).toHaveLength(2);
    expect(tokens.every((t) => t.revoked_at === null)).toBe(true);
    const entry = state().resources['gateway_token.main/ci']!;
    const created = tokens.find((t) => t.token_id !== oldId)!;
    expect(entry.id).toBe(created.token_id);
    expect(entry.superseded).toEqual([
      expect.objectContaining({ id: oldId, revocableAt: new Date(Date.parse(created.created_at) + 24 * HOUR).toISOString() }),
    ]);

    const revealed = await w.cli(['output', 'gateway_token.main/ci', w.dir, '--reveal']);
    expect(revealed.stdout.trim().startsWith(created.token_prefix)).toBe(true);

    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(`gateway_token.main/ci: old gateway_token ${oldId}`);
  });

  it('revokes the old token only with an apply after the overlap', { timeout: 90_000 }, async () => {
    // The story so far: the killed renewal, then the apply that converges (in-process).
    await killed();
    const rerun = await w.run(['apply', w.dir, '--auto-approve']);
    if (rerun.code !== 0) throw new Error(`the converging apply failed: ${rerun.stderr}`);
    w.emulator.moveClock('23h');
    expect((await w.cli(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    expect((await tokensNamedCi()).find((t) => t.token_id === oldId)!.revoked_at).toBeNull();

    w.emulator.moveClock('2h');
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const tokens = await tokensNamedCi();
    expect(tokens.find((t) => t.token_id === oldId)!.revoked_at).not.toBeNull();
    expect(tokens.filter((t) => !t.revoked_at).map((t) => t.token_id)).toEqual([state().resources['gateway_token.main/ci']!.id]);
  });
});
