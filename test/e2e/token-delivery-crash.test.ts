// The CLI killed with SIGKILL between a delivered token's creation and its delivery: the next apply converges
// with the token delivered once and no second token created, and the reader never holds a revoked token.
// Two points: right after the API answered the creation (before state recorded it), and, in a `--replace`,
// right after the API answered the delivery (before state recorded it, so before the old token's revocation).
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';
import { deliveredConfig, readAs } from './token-delivery-config.js';

let w: World;
let recordId: string;
let gatewayId: string;

interface StateFile {
  resources: Record<string, { id: string; superseded?: { id: string }[] }>;
}
const state = (): StateFile => JSON.parse(readFileSync(w.statePath, 'utf8')) as StateFile;
const tokensNamedCi = async () => (await w.client.listAll('listGatewayTokens', { path: { id: gatewayId } })).filter((t) => t.name === 'ci');
const readToken = async () => {
  const read = await readAs(w, recordId);
  expect(read.code, read.stderr).toBe(0);
  return read.stdout.replace(/\n$/, '');
};

// Each test arranges its own world: the first apply runs in-process (the CLI's entry, no subprocess); a killed
// apply stays a real subprocess (in-process, SIGKILL would kill the runner); the step under test runs the real CLI.
beforeEach(async () => {
  w = await world({ account: acme, clockOffset: '-25d' });
  w.config(deliveredConfig('crash'));
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  recordId = state().resources['record.core/ci-token']!.id;
  gatewayId = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'crash-main')!.gateway_id;
  w.emulator.setClockOffset(0);
});
afterEach(async () => w.close());

/** The renewal killed right after the API answered the new token's creation (a real subprocess). */
const killedRenewal = () => w.cli(['apply', w.dir, '--auto-approve'], { CPLANE_TEST_KILL_AFTER_OPERATION: 'createGatewayToken' });
/** The `--replace` killed right after the API answered the delivery (a real subprocess). */
const killedReplace = () =>
  w.cli(['apply', w.dir, '--auto-approve', '--replace', 'gateway_token.main/ci'], {
    CPLANE_TEST_KILL_AFTER_OPERATION: 'createRecordVersion',
  });
async function killed(run: Promise<{ signal: NodeJS.Signals | null; stderr: string }>): Promise<void> {
  const done = await run;
  if (done.signal !== 'SIGKILL') throw new Error(`the apply was not killed: ${done.stderr}`);
}
/** The delivered token as ci-deployer reads it, in-process (for arranging). */
async function readTokenInProcess(): Promise<string> {
  const { CPLANE_STATE_KEY: _stateKey, ...readerEnv } = w.env;
  const read = await runInProcess(
    ['read', '--record-id', recordId],
    {
      ...readerEnv,
      CPLANE_TOKEN: fixtures.tokens.serviceAccount,
      CPLANE_WRITER_KEY: w.writerKey,
      CPLANE_SA_KEY: privateKeyOf(fixtures.serviceAccounts[0]!.id),
    },
    w.temp,
  );
  if (read.code !== 0) throw new Error(`the arranging read failed: ${read.stderr}`);
  return read.stdout.replace(/\n$/, '');
}
/** The first story: the killed renewal, then the apply that converges (in-process). */
async function renewalConverged(): Promise<void> {
  await killed(killedRenewal());
  const rerun = await w.run(['apply', w.dir, '--auto-approve']);
  if (rerun.code !== 0) throw new Error(`the converging apply failed: ${rerun.stderr}`);
}

describe('a renewal killed after the new token was created, before it was delivered', () => {
  let old: string;

  it(
    'is killed with the new token live but neither recorded nor delivered: the reader still holds the old, working token',
    { timeout: 90_000 },
    async () => {
      old = await readToken();
      const run = await killedRenewal();
      expect(run.signal).toBe('SIGKILL');
      expect((await tokensNamedCi()).filter((t) => !t.revoked_at)).toHaveLength(2);
      expect(await readToken()).toBe(old);
      expect(w.emulator.acceptedGatewayToken(old)).toBeDefined();
    },
  );

  it('the next apply delivers the new token once, with no second token created', { timeout: 90_000 }, async () => {
    old = await readTokenInProcess();
    await killed(killedRenewal());
    const before = w.emulator.stats().byOperation;
    const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const after = w.emulator.stats().byOperation;
    // The creation was resent with its Idempotency-Key (replayed, not made again), and the value written once.
    expect(after.createRecordVersion - before.createRecordVersion).toBe(1);
    const tokens = await tokensNamedCi();
    expect(tokens).toHaveLength(2);
    const current = await readToken();
    expect(current).not.toBe(old);
    expect(w.emulator.acceptedGatewayToken(current)).toBe(state().resources['gateway_token.main/ci']!.id);
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });
});

describe('a --replace killed after the delivery was answered, before the old token was revoked', () => {
  let old: string;

  it('leaves the old token working, since the reader may not hold the new one yet', { timeout: 90_000 }, async () => {
    await renewalConverged();
    old = state().resources['gateway_token.main/ci']!.id;
    const run = await killedReplace();
    expect(run.signal).toBe('SIGKILL');
    expect((await tokensNamedCi()).find((t) => t.token_id === old)!.revoked_at).toBeNull();
  });

  it(
    'the next apply finishes: delivered, then the replaced token revoked, and the reader holds the current one',
    { timeout: 90_000 },
    async () => {
      await renewalConverged();
      old = state().resources['gateway_token.main/ci']!.id;
      await killed(killedReplace());
      const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
      expect(rerun.code, rerun.stderr).toBe(0);
      const current = await readToken();
      const entry = state().resources['gateway_token.main/ci']!;
      expect(w.emulator.acceptedGatewayToken(current)).toBe(entry.id);
      expect((await tokensNamedCi()).find((t) => t.token_id === old)!.revoked_at).not.toBeNull();
      // What still works: the current token, and the renewal's old one until its overlap ends (a plain apply, not
      // a --replace, leaves an overlap alone).
      const working = (await tokensNamedCi())
        .filter((t) => !t.revoked_at)
        .map((t) => t.token_id)
        .sort();
      expect(working).toEqual([entry.id, ...(entry.superseded ?? []).map((s) => s.id)].sort());
      expect(entry.superseded?.map((s) => s.id)).not.toContain(old);
      expect((await w.cli(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
    },
  );
});
