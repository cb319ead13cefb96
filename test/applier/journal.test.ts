// Save before send, resend on start: a lost answer or a crash never duplicates a write nor loses a token's plaintext.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_RETENTION_MS, resendJournal } from '../../src/applier/index.js';
import { credentialStep, env, gatewayStep, harness, makePlanOf, projectStep, tokenStep, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  // One attempt per write, so a lost answer is not healed by the client's own retry within the run.
  h = await harness({ maxAttempts: 1 });
});
afterEach(async () => h.close());

describe('the write journal', () => {
  it('keeps a write whose answers were all lost, with its secret body sealed, and resends it once on the next run', async () => {
    h.emulator.setFaults('drop=1,seed=3');
    const result = await h.apply(makePlanOf([credentialStep('lost')]));
    expect(result.failed[0]?.reason).toMatch(/no answer from the API/);
    const [entry] = h.state.data.journal;
    expect(entry).toMatchObject({
      address: 'credential.lost',
      operation: 'createCredential',
      kind: 'credential',
      inputs: { label: 'lost' },
    });
    expect(entry!.body).toHaveProperty('sealed');
    expect(readFileSync(h.state.path, 'utf8')).not.toContain(env.OPENAI_KEY!);

    h.emulator.setFaults('');
    const state = await h.reopen();
    const recovery = await resendJournal({ state, client: h.client });
    expect(h.emulator.stats().byOperation.createCredential).toBe(2);
    expect(recovery).toEqual({ resent: 1, dropped: [], failed: [] });
    expect(state.data.journal).toEqual([]);
    const live = (await h.client.listAll('listCredentials', {})).filter((c) => c.label === 'lost');
    expect(live).toHaveLength(1);
    expect(state.data.resources['credential.lost']).toMatchObject({ id: live[0]!.credential_id, inputs: { label: 'lost' } });
    expect(state.data.resources['credential.lost']!.fingerprints.secret).toBe(
      state.crypto.fingerprint('credential.lost', 'secret', env.OPENAI_KEY!),
    );
  });

  it('recovers a token created before its answer was lost, with the plaintext the API showed once', async () => {
    await h.apply(makePlanOf([projectStep('eps'), credentialStep('openai-e'), gatewayStep('gw-e', 'eps', 'openai-e')]));
    h.emulator.setFaults('drop=1,seed=4');
    await h.apply(makePlanOf([tokenStep('gw-e', 'ci')]));
    expect(h.state.data.journal).toHaveLength(1);
    expect(h.state.data.resources['gateway_token.gw-e/ci']).toBeUndefined();

    h.emulator.setFaults('');
    await resendJournal({ state: h.state, client: h.client });
    const tokens = await h.client.call('listGatewayTokens', { path: { id: h.state.data.resources['gateway.gw-e']!.id } });
    expect(tokens).toHaveLength(1);
    const token = h.state.data.resources['gateway_token.gw-e/ci']!;
    expect(token.id).toBe(tokens[0]!.token_id);
    expect(h.state.crypto.open('gateway_token.gw-e/ci', token.sealed!.plaintext!).startsWith(tokens[0]!.token_prefix)).toBe(true);
  });

  it('drops entries older than the 24 h idempotency window without sending them', async () => {
    const old = new Date(Date.now() - IDEMPOTENCY_RETENTION_MS - 60_000).toISOString();
    await h.state.update((draft) => {
      draft.journal.push({
        id: 'e1',
        address: 'project.old',
        stepId: 'project.old',
        operation: 'createProject',
        pathParams: {},
        idempotencyKey: 'k-old',
        body: { plain: '{}' },
        createdAt: old,
        kind: 'project',
      });
    });
    const events: unknown[] = [];
    const recovery = await resendJournal({ state: h.state, client: h.client, onEvent: (e) => events.push(e) });
    expect(recovery.dropped).toEqual([{ address: 'project.old', operation: 'createProject', createdAt: old }]);
    expect(events).toEqual([{ type: 'journal-dropped', address: 'project.old', operation: 'createProject', createdAt: old }]);
    expect(h.state.data.journal).toEqual([]);
    expect(h.clientEvents).toEqual([]);
  });

  it('applying the same plan twice writes once: the API replays the saved keys', async () => {
    const plan = makePlanOf([projectStep('twice')]);
    await h.apply(plan);
    const firstId = h.state.data.resources['project.twice']!.id;
    await h.apply(plan);
    expect(h.state.data.resources['project.twice']!.id).toBe(firstId);
    expect((await h.client.listAll('listProjects', {})).filter((p) => p.name === 'twice')).toHaveLength(1);
  });
});
