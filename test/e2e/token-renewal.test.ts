// A gateway token is renewed before it expires: the new token is created first and sealed in state, the old one
// keeps working for the overlap (24 hours by default, from the new token's creation on the API's clock), and a
// later apply, once the overlap has ended, revokes it. Time passes by moving the emulator's clock, never by waiting.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayTokenT } from '../../src/api/shapes.js';
import { smallConfig, world, type CliResult, type World } from './helpers.js';

const HOUR = 3_600_000;
let w: World;
let gatewayId: string;
let oldToken: GatewayTokenT;
let newToken: GatewayTokenT;
let plaintext = '';
/** Every CLI run of the story, to check at the end that the plaintext never appeared in one. */
let runs: CliResult[];

interface StateEntry {
  id: string;
  superseded?: { id: string; revocableAt: string }[];
}
const tokenIn = (): StateEntry =>
  (JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, StateEntry> }).resources['gateway_token.main/ci']!;
const tokensLive = async () => w.client.listAll('listGatewayTokens', { path: { id: gatewayId } });
const isActive = (t: GatewayTokenT | undefined) => t !== undefined && t.revoked_at === null && Date.parse(t.expires_at!) > Date.now();
const cli = async (args: string[]) => {
  const run = await w.cli(args);
  runs.push(run);
  return run;
};
/** The CLI in-process (the CLI's entry, no subprocess), kept in `runs` like `cli`: for arranging the story. */
const inProcess = async (args: string[]) => {
  const run = await w.run(args);
  runs.push(run);
  return run;
};
const appliedInProcess = async () => expect((await inProcess(['apply', w.dir, '--auto-approve'])).code).toBe(0);

/** The story so far, in-process, step by step as the tests below take it; the step under test runs the real CLI. */
const steps = {
  due: () => w.emulator.setClockOffset(0),
  async renewed() {
    await appliedInProcess();
    newToken = (await tokensLive()).find((t) => t.token_id === tokenIn().id)!;
  },
  async revealed() {
    plaintext = (await w.run(['output', 'gateway_token.main/ci', w.dir, '--reveal'])).stdout.trim();
  },
  async overlapping() {
    w.emulator.moveClock('23h');
    await appliedInProcess();
  },
  async finished() {
    w.emulator.moveClock('2h');
    await appliedInProcess();
    await inProcess(['plan', w.dir]);
  },
};
async function story(...names: (keyof typeof steps)[]): Promise<void> {
  for (const name of names) await steps[name]();
}

// Each test arranges its own world: the token applied in-process 25 days ago, then the steps before it.
beforeEach(async () => {
  runs = [];
  plaintext = '';
  // The token is made 25 days ago (by the emulator's clock), to live 30 days, renewed 7 days before it expires.
  w = await world({ clockOffset: '-25d' });
  w.config(smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 30\n        renewBeforeDays: 7'));
  const applied = await inProcess(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  gatewayId = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-main')!.gateway_id;
  oldToken = (await tokensLive()).find((t) => t.token_id === tokenIn().id)!;
});
afterEach(async () => w.close());

describe('a token renewed before it expires', () => {
  it('is left alone while it is more than 7 days from its expiry', async () => {
    const plan = await cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('is renewed by the next plan once it expires within 7 days, which says when the old one goes', async () => {
    w.emulator.setClockOffset(0);
    const plan = await cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
    const when = /old token revoked by the first apply after (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(plan.stdout)?.[1];
    expect(Math.abs(Date.parse(`${when}Z`) - (Date.now() + 24 * HOUR))).toBeLessThan(2 * 60_000);
    expect(plan.stdout).toContain(
      `# gateway_token.main/ci will be renewed (renew: expires in 5 days (old token revoked by the first apply after ${when} UTC))`,
    );
    expect(plan.stdout).toMatch(/ {2}~ {3}gateway_token "main\/ci"\n/);
    expect(plan.stdout).toMatch(/~ expiresAt = "[0-9T:.-]+Z" {2}\(renew: expires in 5 days/);
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to replace, 0 to remove.');

    const planned = JSON.parse((await cli(['plan', w.dir, '--json'])).stdout) as {
      steps: { address: string; action: string; writes: { operation: string }[] }[];
    };
    const step = planned.steps.find((s) => s.address === 'gateway_token.main/ci')!;
    expect(step.action).toBe('renew');
    // The new token first, and nothing revoked now.
    expect(step.writes.map((x) => x.operation)).toEqual(['createGatewayToken']);
  });

  it('is applied from a saved plan: both tokens work during the overlap, and state points at the new one', async () => {
    await story('due');
    const planFile = join(w.dir, '..', 'renewal.plan');
    expect((await inProcess(['plan', w.dir, '--out', planFile])).code).toBe(0);
    const applied = await cli(['apply', planFile]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('apply: gateway_token.main/ci: renewed id=');

    const tokens = await tokensLive();
    newToken = tokens.find((t) => t.token_id === tokenIn().id)!;
    expect(newToken.token_id).not.toBe(oldToken.token_id);
    expect(isActive(newToken)).toBe(true);
    expect(isActive(tokens.find((t) => t.token_id === oldToken.token_id))).toBe(true);
    // The overlap is timed from the new token's creation, on the API's clock.
    expect(tokenIn().superseded).toEqual([
      {
        id: oldToken.token_id,
        parents: { gatewayId },
        outputs: { tokenPrefix: oldToken.token_prefix, expiresAt: oldToken.expires_at },
        revocableAt: new Date(Date.parse(newToken.created_at) + 24 * HOUR).toISOString(),
      },
    ]);
  });

  it('reveals the new token with cplane output', async () => {
    await story('due', 'renewed');
    const revealed = await cli(['output', 'gateway_token.main/ci', w.dir, '--reveal']);
    expect(revealed.code).toBe(0);
    plaintext = revealed.stdout.trim();
    expect(plaintext.startsWith(newToken.token_prefix)).toBe(true);
    runs.pop(); // the one run that is asked to show it
  });

  it('says, during the overlap, that the old token waits for its revocation, without counting it as a change', async () => {
    await story('due', 'renewed');
    w.emulator.moveClock('23h');
    const plan = await cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      'Superseded by a renewal, still working during their overlap (the first apply after the time shown revokes each):',
    );
    const until = tokenIn().superseded![0]!.revocableAt.slice(0, 16).replace('T', ' ');
    expect(plan.stdout).toContain(
      `~ gateway_token.main/ci: old gateway_token ${oldToken.token_id} (tokenPrefix ${oldToken.token_prefix}, expiresAt ${oldToken.expires_at}) until ${until} UTC`,
    );
    expect(plan.stdout).toContain('No changes.');
    const applied = await cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(isActive((await tokensLive()).find((t) => t.token_id === oldToken.token_id))).toBe(true);
  });

  it('revokes the old token with the first apply after the overlap, and then there is nothing to do', async () => {
    await story('due', 'renewed', 'overlapping');
    w.emulator.moveClock('2h');
    const plan = await cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      '# gateway_token.main/ci will be renewed (finishing a renewal: the overlap of the old token ended 1 hour ago)',
    );
    expect(plan.stdout).toContain(`      - revoke superseded token = "${oldToken.token_id}"\n`);
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to replace, 0 to remove.');

    const applied = await cli(['apply', w.dir, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const tokens = await tokensLive();
    expect(tokens.find((t) => t.token_id === oldToken.token_id)!.revoked_at).not.toBeNull();
    expect(isActive(tokens.find((t) => t.token_id === newToken.token_id))).toBe(true);
    expect(tokenIn().superseded).toBeUndefined();

    const again = await cli(['plan', w.dir, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.stdout).not.toContain('Superseded');
    expect(again.code).toBe(0);
  });

  it('never shows the new plaintext anywhere else: no run printed it, and state holds it sealed', async () => {
    await story('due', 'renewed', 'revealed', 'overlapping', 'finished');
    expect(plaintext.length).toBeGreaterThan(10);
    for (const run of runs) expect(run.stdout + run.stderr).not.toContain(plaintext);
    expect(readFileSync(w.statePath, 'utf8')).not.toContain(plaintext);
  });
});
