// A gateway token delivered to a record (`deliverTo`): apply writes the token's plaintext as the record's value,
// wrapped for the record's reader, and the Service Account reads it with the real `cplane read`: exactly the token
// the gateway accepts. Renewal and `--replace` deliver the new token before the old one is revoked, and the
// plaintext is never printed, planned or stored in clear.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acme, world, type World } from './helpers.js';
import { deliveredConfig, readAs } from './token-delivery-config.js';

let w: World;
let recordId: string;

interface StateFile {
  resources: Record<string, { id: string; sealed?: Record<string, unknown>; superseded?: { id: string }[] }>;
}
const state = (): StateFile => JSON.parse(readFileSync(w.statePath, 'utf8')) as StateFile;
const liveTokens = async () => (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'deliver-main')!.gateway_id;
const tokensNamedCi = async () =>
  (await w.client.listAll('listGatewayTokens', { path: { id: await liveTokens() } })).filter((t) => t.name === 'ci');
/** Every plaintext seen, for the leak scan at the end. */
let seen: Set<string>;
/** The token's plaintext, kept in `seen`; `inProcess`: read by the CLI's entry in this process (for arranging). */
const revealed = async (inProcess = false) => {
  const args = ['output', 'gateway_token.main/ci', w.dir, '--reveal'];
  const token = (await (inProcess ? w.run(args) : w.cli(args))).stdout.trim();
  seen.add(token);
  return token;
};

/** The token the application reads: it must be the one the gateway accepts, and the one state holds. */
async function expectReaderHoldsCurrentToken(): Promise<string> {
  const read = await readAs(w, recordId);
  expect(read.code, read.stderr).toBe(0);
  const token = read.stdout.replace(/\n$/, '');
  expect(token).toBe(await revealed());
  expect(w.emulator.acceptedGatewayToken(token)).toBe(state().resources['gateway_token.main/ci']!.id);
  return token;
}

// Each test arranges its own world: the steps before the one under test run in-process (the CLI's entry, no
// subprocess), each token they make revealed into `seen`; the step under test runs the real CLI.
beforeEach(async () => {
  w = await world({ account: acme, clockOffset: '-25d' });
  w.config(deliveredConfig('deliver'));
  seen = new Set();
});
afterEach(async () => w.close());

async function appliedInProcess(...args: string[]): Promise<void> {
  const applied = await w.run(['apply', w.dir, '--auto-approve', ...args]);
  expect(applied.code, applied.stderr).toBe(0);
  await revealed(true);
}
const steps = {
  async created() {
    await appliedInProcess();
    recordId = state().resources['record.core/ci-token']!.id;
  },
  async renewed() {
    w.emulator.setClockOffset(0);
    await appliedInProcess();
  },
  replaced: () => appliedInProcess('--replace', 'gateway_token.main/ci'),
  async reissued() {
    w.emulator.moveClock('31d');
    await appliedInProcess();
  },
  /** Renewed again through a saved plan, whose file the leak scan reads too. */
  async renewedFromSavedPlan() {
    w.emulator.moveClock('24d');
    const planFile = join(w.temp, 'renew.plan');
    expect((await w.run(['plan', w.dir, '--out', planFile])).code).toBe(0);
    w.outputs.push(readFileSync(planFile, 'utf8'));
    expect((await w.run(['apply', planFile])).code).toBe(0);
    await revealed(true);
  },
};
async function story(...names: (keyof typeof steps)[]): Promise<void> {
  for (const name of names) await steps[name]();
}

describe('a token delivered to its record', () => {
  it(
    'plans the delivery without the plaintext, and creation delivers it: the Service Account reads the token the gateway accepts',
    { timeout: 90_000 },
    async () => {
      const plan = await w.cli(['plan', w.dir]);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain('record.core/ci-token');
      const applied = await w.cli(['apply', w.dir, '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
      recordId = state().resources['record.core/ci-token']!.id;
      await expectReaderHoldsCurrentToken();
      const again = await w.run(['plan', w.dir, '--detailed-exitcode']);
      expect(again.code, again.stdout).toBe(0);
    },
  );

  it(
    'renews inside the window: the plan shows the delivery, the new token is delivered and the old one keeps working for the overlap',
    { timeout: 90_000 },
    async () => {
      await story('created');
      w.emulator.setClockOffset(0);
      const plan = await w.cli(['plan', w.dir, '--json']);
      expect(plan.code, plan.stderr).toBe(0);
      const steps = (
        JSON.parse(plan.stdout) as {
          steps: { address: string; action: string; causes?: string[]; changes: { path: string; note?: string }[] }[];
        }
      ).steps;
      const delivery = steps.find((s) => s.address === 'record.core/ci-token')!;
      expect(delivery.causes).toEqual(['delivery']);
      expect(delivery.changes.find((c) => c.path === 'value')!.note).toBe('delivered from gateway_token.main/ci; re-wrapped for 1 reader');
      expect(steps.find((s) => s.address === 'gateway_token.main/ci')!.action).toBe('renew');
      const text = await w.cli(['plan', w.dir]);
      expect(text.stdout).toMatch(/~ value += \(sensitive\) +\(delivered from gateway_token\.main\/ci; re-wrapped for 1 reader\)/);

      const old = await revealed(true);
      const applied = await w.cli(['apply', w.dir, '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
      const current = await expectReaderHoldsCurrentToken();
      expect(current).not.toBe(old);
      // During the overlap both work, and the record holds the new one.
      expect(w.emulator.acceptedGatewayToken(old)).toBeDefined();
    },
  );

  it('--replace delivers the new token, then revokes the old one in the same apply', { timeout: 90_000 }, async () => {
    await story('created', 'renewed');
    const old = await revealed(true);
    const plan = await w.cli(['plan', w.dir, '--replace', 'gateway_token.main/ci']);
    expect(plan.stdout).toContain('gateway_token.main/ci: the old one is revoked only after the new one is delivered here');
    // The order the apply follows: the token's step creates only; the record's step delivers, re-wraps, then revokes.
    const json = JSON.parse((await w.cli(['plan', w.dir, '--replace', 'gateway_token.main/ci', '--json'])).stdout) as {
      steps: { address: string; dependsOn: string[]; writes: { operation: string; address?: string }[] }[];
    };
    const operations = (address: string) =>
      json.steps.find((s) => s.address === address)!.writes.map((w) => `${w.operation}${w.address ? ` for ${w.address}` : ''}`);
    expect(operations('gateway_token.main/ci')).toEqual(['createGatewayToken']);
    expect(operations('record.core/ci-token')).toEqual([
      'createRecordVersion',
      'grantServiceAccount',
      'revokeGatewayToken for gateway_token.main/ci',
      'revokeGatewayToken for gateway_token.main/ci',
    ]);
    expect(json.steps.find((s) => s.address === 'record.core/ci-token')!.dependsOn).toContain('gateway_token.main/ci');
    const applied = await w.cli(['apply', w.dir, '--auto-approve', '--replace', 'gateway_token.main/ci']);
    expect(applied.code, applied.stderr).toBe(0);
    await expectReaderHoldsCurrentToken();
    expect(w.emulator.acceptedGatewayToken(old)).toBeUndefined();
    // Every token but the current one is revoked (the renewal's superseded one too: --replace leaves none working).
    expect((await tokensNamedCi()).filter((t) => !t.revoked_at).map((t) => t.token_id)).toEqual([
      state().resources['gateway_token.main/ci']!.id,
    ]);
    expect(state().resources['gateway_token.main/ci']!.superseded).toBeUndefined();
  });

  it('an expired token is re-issued and delivered', { timeout: 90_000 }, async () => {
    await story('created', 'renewed', 'replaced');
    w.emulator.moveClock('31d');
    const applied = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    await expectReaderHoldsCurrentToken();
    expect((await w.run(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
  });

  it('a saved plan delivers the renewed token too (the plan file holds the source, never the token)', { timeout: 90_000 }, async () => {
    await story('created', 'renewed', 'replaced', 'reissued');
    w.emulator.moveClock('24d');
    const planFile = join(w.temp, 'renew.plan');
    const planned = await w.cli(['plan', w.dir, '--out', planFile]);
    expect(planned.code, planned.stderr).toBe(0);
    const saved = readFileSync(planFile, 'utf8');
    expect(JSON.parse(saved).steps.find((s: { address: string }) => s.address === 'record.core/ci-token').secrets).toEqual({
      value: { output: { address: 'gateway_token.main/ci', name: 'plaintext' } },
    });
    const old = await revealed(true);
    expect(saved).not.toContain(old);
    const applied = await w.cli(['apply', planFile]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await expectReaderHoldsCurrentToken()).not.toBe(old);
    w.outputs.push(saved);
  });

  it('never shows or stores the plaintext in clear', { timeout: 90_000 }, async () => {
    await story('created', 'renewed', 'replaced', 'reissued', 'renewedFromSavedPlan');
    await revealed();
    const tokens = [...seen];
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    // `output --reveal` prints it by design: every other output and every stored file must not.
    const outputs = w.outputs.filter((o) => !tokens.some((t) => o.trim() === t));
    const stored = await w.stored();
    for (const token of tokens) {
      for (const text of [...outputs, ...stored]) expect(text).not.toContain(token);
    }
  });
});
