// A write of one step recorded on another address (`PlannedWrite.address`): how a record's delivery step revokes
// the old token it replaced. It may only settle a superseded object there; any other effect on another address
// (taking it out of state, giving it an id) is refused before the write is sent, so a plan cannot use a step to
// rewrite another address's state.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlanStep, PlannedWrite } from '../../src/plan-model/index.js';
import { credentialStep, gatewayStep, harness, makePlanOf, projectStep, tokenStep, type Harness } from './helpers.js';

const TOKEN = 'gateway_token.gw/ci';
let h: Harness;
beforeEach(async () => {
  h = await harness();
  await h.apply(makePlanOf([projectStep('p'), credentialStep('c'), gatewayStep('gw', 'p', 'c'), tokenStep('gw', 'ci')]));
  // Renewed with no overlap: the old token is superseded in state, revocable at once.
  const step = tokenStep('gw', 'ci');
  await h.apply(
    makePlanOf([
      {
        ...step,
        action: 'renew',
        writes: step.writes.map((w) => ({ ...w, effects: { ...w.effects, supersede: { overlapHours: 0, createdAt: 'created_at' } } })),
      },
    ]),
  );
});
afterEach(async () => h.close());

/** A project step (another address) whose only write revokes the token's superseded one, for the token's address. */
function revokingStep(effects: PlannedWrite['effects']): { step: PlanStep; oldId: string } {
  const entry = h.state.data.resources[TOKEN]!;
  const old = entry.superseded![0]!;
  const write: PlannedWrite = {
    id: 'project.p#0',
    operation: 'revokeGatewayToken',
    path: { id: old.parents!.gatewayId!, tokenId: old.id },
    idempotencyKey: crypto.randomUUID(),
    effects,
    summary: 'revoke the old token',
    address: TOKEN,
  };
  return {
    step: {
      address: 'project.p',
      kind: 'project',
      action: 'update',
      changes: [],
      dependsOn: [],
      writes: [write],
      inputs: { name: 'p', description: 'changed' },
    },
    oldId: old.id,
  };
}

const revokes = () => h.emulator.stats().byOperation.revokeGatewayToken;

describe('a write recorded on another address', () => {
  it('settles the superseded object of that address, and records nothing of its own step there', async () => {
    const { step, oldId } = revokingStep({ settleSuperseded: h.state.data.resources[TOKEN]!.superseded![0]!.id });
    const before = structuredClone(h.state.data.resources[TOKEN]!);
    const result = await h.apply(makePlanOf([step]));
    expect(result.failed).toEqual([]);
    const entry = h.state.data.resources[TOKEN]!;
    expect(entry.superseded).toBeUndefined();
    expect(entry.inputs).toEqual(before.inputs);
    expect(entry.id).toBe(before.id);
    expect(entry.kind).toBe('gateway_token');
    // The step's own inputs go to its own address.
    expect(h.state.data.resources['project.p']!.inputs).toEqual({ name: 'p', description: 'changed' });
    const gatewayId = entry.parents!.gatewayId!;
    expect(
      (await h.client.listAll('listGatewayTokens', { path: { id: gatewayId } })).find((t) => t.token_id === oldId)!.revoked_at,
    ).not.toBeNull();
  });

  it.each([
    ['forget', { forget: true }],
    ['an id', { id: { result: 'token_id' } }],
  ] as const)('is refused before it is sent when it would give that address %s', async (_what, effects) => {
    const { step } = revokingStep(effects);
    const before = structuredClone(h.state.data.resources[TOKEN]!);
    const sent = revokes();
    const result = await h.apply(makePlanOf([step]));
    expect(result.failed).toEqual([
      expect.objectContaining({
        address: 'project.p',
        reason: `project.p: the write project.p#0 for ${TOKEN} may only settle a superseded object`,
      }),
    ]);
    expect(revokes()).toBe(sent);
    expect(h.state.data.resources[TOKEN]).toEqual(before);
    expect(h.state.data.journal).toEqual([]);
  });
});
