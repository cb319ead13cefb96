// The state effects of a renewal stay generic (no kind named): a write with `supersede` that gives an address a new
// id keeps the old one as superseded, timed from the answer's creation time plus the overlap; a write with
// `settleSuperseded` takes it off the list. An answer without the creation time fails the write and leaves state as it was.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlanStep } from '../../src/plan-model/index.js';
import { credentialStep, gatewayStep, harness, makePlanOf, projectStep, tokenStep, type Harness } from './helpers.js';

const HOUR = 3_600_000;
const ADDRESS = 'gateway_token.gw/ci';
let h: Harness;
beforeEach(async () => {
  h = await harness();
  await h.apply(makePlanOf([projectStep('p'), credentialStep('c'), gatewayStep('gw', 'p', 'c'), tokenStep('gw', 'ci')]));
});
afterEach(async () => h.close());

/** The token step again, as a renewal: its create keeps the old token for `overlapHours`, read from `createdAt`. */
function renewal(createdAt: string): PlanStep {
  const step = tokenStep('gw', 'ci');
  return {
    ...step,
    action: 'renew',
    writes: step.writes.map((w) => ({ ...w, effects: { ...w.effects, supersede: { overlapHours: 24, createdAt } } })),
  };
}

describe('superseding and settling', () => {
  it('keeps the old id with its parents, revocable 24 hours after the new object was created', async () => {
    const old = h.state.data.resources[ADDRESS]!;
    const result = await h.apply(makePlanOf([renewal('created_at')]));
    expect(result.failed).toEqual([]);
    const entry = h.state.data.resources[ADDRESS]!;
    const created = (await h.client.listAll('listGatewayTokens', { path: { id: old.parents!.gatewayId! } })).find(
      (t) => t.token_id === entry.id,
    )!;
    expect(entry.id).not.toBe(old.id);
    expect(entry.superseded).toEqual([
      { id: old.id, parents: old.parents, revocableAt: new Date(Date.parse(created.created_at) + 24 * HOUR).toISOString() },
    ]);

    const settle: PlanStep = {
      address: ADDRESS,
      kind: 'gateway_token',
      action: 'renew',
      changes: [],
      dependsOn: [],
      writes: [
        {
          id: `${ADDRESS}#0`,
          operation: 'revokeGatewayToken',
          path: { id: old.parents!.gatewayId!, tokenId: old.id },
          idempotencyKey: crypto.randomUUID(),
          effects: { settleSuperseded: old.id },
          summary: 'revoke',
        },
      ],
    };
    expect((await h.apply(makePlanOf([settle]))).failed).toEqual([]);
    expect(h.state.data.resources[ADDRESS]).toMatchObject({ id: entry.id });
    expect(h.state.data.resources[ADDRESS]!.superseded).toBeUndefined();
  });

  it('fails the write, and records nothing, when the answer has no creation time at the path given', async () => {
    const before = structuredClone(h.state.data.resources[ADDRESS]);
    const result = await h.apply(makePlanOf([renewal('no_such_field')]));
    expect(result.failed[0]?.reason).toBe("the answer has no creation time at no_such_field, so the old object's overlap cannot be timed");
    expect(h.state.data.resources[ADDRESS]).toEqual(before);
  });
});
