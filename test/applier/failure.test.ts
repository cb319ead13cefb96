// A failed step stops its dependents (skipped, errors suppressed); independent steps finish; the journal keeps only what may have happened.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { credentialStep, gatewayStep, harness, makePlanOf, projectStep, tokenStep, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => h.close());

describe('a failing step', () => {
  it('skips its dependents, lets independent steps finish, and reports the reason and request id', async () => {
    const gateway = gatewayStep('broken', 'delta', 'openai-d');
    (gateway.writes[0]!.body as { credentialIds: unknown[] }).credentialIds = [];
    const plan = makePlanOf([
      projectStep('delta'),
      credentialStep('openai-d'),
      gateway,
      tokenStep('broken', 'ci'),
      projectStep('independent'),
    ]);
    const result = await h.apply(plan);

    expect(result.failed.map((f) => [f.address, f.status])).toEqual([['gateway.broken', 400]]);
    expect(result.failed[0]!.reason).toMatch(/^createGateway failed: 400 bad_request/);
    expect(result.failed[0]!.requestId).toBeTruthy();
    expect(result.skipped).toEqual([
      {
        stepId: 'gateway_token.broken/ci',
        address: 'gateway_token.broken/ci',
        kind: 'gateway_token',
        action: 'create',
        cause: 'dependency-failed',
        after: 'gateway.broken',
      },
    ]);
    expect(result.done.map((d) => d.address).sort()).toEqual(['credential.openai-d', 'project.delta', 'project.independent']);
    expect(h.events.filter((e) => e.type === 'step-failed')).toHaveLength(1);
    // A 400 says the write did not happen: nothing is left to resend.
    expect(h.state.data.journal).toEqual([]);
    expect(Object.keys(h.state.data.resources).sort()).toEqual(['credential.openai-d', 'project.delta', 'project.independent']);
  });

  it('fails a step whose reference has no id in state, before anything is sent or saved', async () => {
    const result = await h.apply(makePlanOf([tokenStep('missing', 'ci')]));
    expect(result.failed[0]!.reason).toBe('gateway.missing has no remote id in state (it was not created, or its step failed)');
    expect(h.clientEvents).toEqual([]);
    expect(h.state.data.journal).toEqual([]);
  });

  it('keeps the journal entry after 500 on every attempt (the write may have happened), clears it after 429 on every attempt', async () => {
    h.emulator.setFaults('500=1,seed=1');
    const first = await h.apply(makePlanOf([projectStep('maybe')]));
    expect(first.failed[0]?.status).toBe(500);
    expect(h.state.data.journal.map((e) => e.address)).toEqual(['project.maybe']);

    h.emulator.setFaults('429=1,seed=1');
    const second = await h.apply(makePlanOf([projectStep('never')]));
    expect(second.failed[0]?.status).toBe(429);
    expect(h.state.data.journal.map((e) => e.address)).toEqual(['project.maybe']);
  });
});
