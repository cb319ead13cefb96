// The tokens a renewal superseded are kept in state until their overlap ends, and a later apply revokes them. That
// list cannot be used to revoke an arbitrary token: an entry edited without the state key is refused before
// anything is sent, and even an authentic entry (made with the key, as a bug could) revokes only a token the live
// account shows under the same gateway.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { entryMacKey, macResource } from '../../src/state/entry-mac.js';
import type { ResourceState, StateFileContents } from '../../src/state/index.js';
import { smallConfig, world, type World } from './helpers.js';

const ADDRESS = 'gateway_token.main/ci';
let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** A token renewed once (its old one superseded), with the clock then moved past the overlap. */
async function renewed(): Promise<World> {
  const made = await world({ clockOffset: '-25d' });
  made.config(smallConfig().replace('scopes: [run]', 'scopes: [run]\n        expiresInDays: 30\n        renewBeforeDays: 7'));
  // Arrangement, in-process (the CLI's entry, no subprocess): the plans and applies under test run the real CLI.
  expect((await made.run(['apply', made.dir, '--auto-approve'])).code).toBe(0);
  made.emulator.setClockOffset(0);
  const run = await made.cli(['apply', made.dir, '--auto-approve']);
  expect(run.code, run.stderr).toBe(0);
  made.emulator.moveClock('25h');
  return made;
}

/** A live token of a gateway cplane does not manage. */
async function foreignToken(w: World): Promise<string> {
  const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug !== 'shop-main' && g.status !== 'disabled')!;
  return (await w.client.listAll('listGatewayTokens', { path: { id: gateway.gateway_id } })).find((t) => !t.revoked_at)!.token_id;
}

async function isRevoked(w: World, tokenId: string): Promise<boolean> {
  for (const g of await w.client.listAll('listGateways', {})) {
    const token = (await w.client.listAll('listGatewayTokens', { path: { id: g.gateway_id } })).find((t) => t.token_id === tokenId);
    if (token) return token.revoked_at !== null;
  }
  throw new Error(`no token ${tokenId}`);
}

function pointSupersededAt(w: World, tokenId: string, mac: 'keep' | 'remake'): void {
  const state = JSON.parse(readFileSync(w.statePath, 'utf8')) as StateFileContents;
  const entry = state.resources[ADDRESS]!;
  const forged: ResourceState = { ...entry, superseded: [{ ...entry.superseded![0]!, id: tokenId }] };
  state.resources[ADDRESS] =
    mac === 'keep' ? forged : macResource(entryMacKey(Buffer.from(w.env.CPLANE_STATE_KEY!, 'base64')), state, ADDRESS, forged);
  writeFileSync(w.statePath, JSON.stringify(state, null, 2));
}

describe('a superseded token in a forged state', () => {
  it('edited without the state key: plan and apply refuse the entry, naming it, and revoke nothing', { timeout: 90_000 }, async () => {
    w = await renewed();
    const target = await foreignToken(w);
    pointSupersededAt(w, target, 'keep');

    for (const args of [
      ['plan', w.dir],
      ['apply', w.dir, '--auto-approve'],
    ]) {
      const run = await w.cli(args);
      expect(run.code, args[0]).not.toBe(0);
      expect(run.stderr).toContain(`resource ${ADDRESS}`);
      expect(run.stderr).toContain("did not write with this state's key");
    }
    expect(await isRevoked(w, target)).toBe(false);
  });

  it('made with the key: a token of another gateway is never revoked as superseded', { timeout: 90_000 }, async () => {
    w = await renewed();
    const target = await foreignToken(w);
    pointSupersededAt(w, target, 'remake');

    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('revoke superseded');
    expect((await w.cli(['apply', w.dir, '--auto-approve'])).code).toBe(0);
    expect(await isRevoked(w, target)).toBe(false);
  });
});
