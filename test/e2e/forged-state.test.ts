// Whoever can write the state file but does not hold the state key cannot make cplane send a write: a journal
// entry added by hand (deleteGateway against a gateway cplane does not manage) is refused by plan and apply,
// naming it; a resource entry pointed at another object (a token cplane does not manage) is refused before
// `destroy --target` revokes anything. An authentic entry whose operation its kind never sends is refused too.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { entryMacKey, macJournalEntry } from '../../src/state/entry-mac.js';
import type { JournalEntry, StateFileContents } from '../../src/state/index.js';
import { smallConfig, world, type World } from './helpers.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

async function applied(): Promise<World> {
  const made = await world();
  made.config(smallConfig());
  const run = await made.run(['apply', made.dir, '--auto-approve']);
  expect(run.code, run.stderr).toBe(0);
  return made;
}

/** A gateway of the account that cplane does not manage, and one of its live tokens. */
async function unmanaged(w: World): Promise<{ gatewayId: string; tokenId: string }> {
  const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug !== 'shop-main' && g.status !== 'disabled')!;
  const token = (await w.client.listAll('listGatewayTokens', { path: { id: gateway.gateway_id } })).find((t) => !t.revoked_at)!;
  return { gatewayId: gateway.gateway_id, tokenId: token.token_id };
}

function editState(w: World, edit: (state: StateFileContents) => void): void {
  const state = JSON.parse(readFileSync(w.statePath, 'utf8')) as StateFileContents;
  edit(state);
  writeFileSync(w.statePath, JSON.stringify(state, null, 2));
}

function deleteGatewayEntry(gatewayId: string): JournalEntry {
  return {
    id: randomUUID(),
    address: 'project.shop',
    stepId: 'project.shop',
    operation: 'deleteGateway',
    pathParams: { id: gatewayId },
    idempotencyKey: randomUUID(),
    body: null,
    createdAt: new Date().toISOString(),
  };
}

describe('a forged state', () => {
  it('a journal entry added by hand is refused by plan and apply, naming it, and nothing is sent', { timeout: 90_000 }, async () => {
    w = await applied();
    const { gatewayId } = await unmanaged(w);
    editState(w, (state) => state.journal.push(deleteGatewayEntry(gatewayId)));

    for (const args of [
      ['plan', w.dir],
      ['apply', w.dir, '--auto-approve'],
    ]) {
      const run = await w.cli(args);
      expect(run.code, args[0]).not.toBe(0);
      expect(run.stderr).toContain('pending write deleteGateway of project.shop');
      expect(run.stderr).toContain("did not write with this state's key");
      expect(run.stdout).not.toContain('resent');
    }
    const gateway = await w.client.send('getGateway', { path: { id: gatewayId } });
    expect((gateway.data as { status: string }).status).not.toBe('disabled');
  });

  it(
    "an authentic journal entry whose operation its address's kind never sends is refused before it is resent",
    { timeout: 90_000 },
    async () => {
      w = await applied();
      const { gatewayId } = await unmanaged(w);
      // Made with the state key (as a bug could): the MAC holds, the kind check does not.
      const key = entryMacKey(Buffer.from(w.env.CPLANE_STATE_KEY!, 'base64'));
      editState(w, (state) => state.journal.push(macJournalEntry(key, state, deleteGatewayEntry(gatewayId))));

      const run = await w.cli(['apply', w.dir, '--auto-approve']);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("that their address's kind never sends: deleteGateway of project.shop");
      const gateway = await w.client.send('getGateway', { path: { id: gatewayId } });
      expect((gateway.data as { status: string }).status).not.toBe('disabled');
    },
  );

  it(
    'a resource entry pointed at a token cplane does not manage is refused before destroy --target revokes it',
    { timeout: 90_000 },
    async () => {
      w = await applied();
      const { gatewayId, tokenId } = await unmanaged(w);
      editState(w, (state) => {
        const entry = state.resources['gateway_token.main/ci']!;
        entry.id = tokenId;
        entry.parents = { gatewayId };
      });

      const run = await w.cli(['destroy', w.dir, '--target', 'gateway_token.main/ci', '--auto-approve']);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain('resource gateway_token.main/ci');
      const tokens = await w.client.listAll('listGatewayTokens', { path: { id: gatewayId } });
      expect(tokens.find((t) => t.token_id === tokenId)!.revoked_at).toBeNull();
    },
  );
});
