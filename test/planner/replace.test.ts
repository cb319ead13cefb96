// A token change other than its name replaces it: the new token first (plaintext sealed), then the old one revoked.
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../src/planner/index.js';
import { actions, eachTestHarness, fullConfig, problemsOf } from './harness.js';

describe('replace', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });

  it('creates the new token, then revokes the old one, and says which fields forced it', async () => {
    const oldId = h().state.data.resources['gateway_token.prod/ci']!.id;
    h().config(fullConfig.replace('scopes: [run]', 'scopes: [run, read_logs]').replace('rateLimitPerMin: 60', 'rateLimitPerMin: 120'));
    const plan = await h().plan();
    expect(actions(plan)).toEqual(['replace gateway_token.prod/ci']);
    const [step] = plan.steps;
    expect(step!.reason).toBe('rateLimitPerMin, scopes cannot change in place: a new one is created, then the old one is revoked');
    expect(step!.changes).toEqual([
      { path: 'rateLimitPerMin', before: 60, after: 120, forcesReplace: true },
      { path: 'scopes', before: ['run'], after: ['read_logs', 'run'], forcesReplace: true },
    ]);
    expect(step!.writes.map((w) => w.operation)).toEqual(['createGatewayToken', 'revokeGatewayToken']);
    expect(step!.writes[0]!.effects.seal).toEqual({ name: 'plaintext', result: 'plaintext' });
    expect(step!.writes[1]!.path).toMatchObject({ tokenId: oldId });
    expect(step!.forget).toBeUndefined();
    expect(plan.summary.replace).toBe(1);

    expect((await h().apply(plan)).failed).toEqual([]);
    const entry = h().state.data.resources['gateway_token.prod/ci']!;
    expect(entry.id).not.toBe(oldId);
    const tokens = await h().client.listAll('listGatewayTokens', { path: { id: entry.parents!.gatewayId! } });
    expect(tokens.find((t) => t.token_id === oldId)?.revoked_at).not.toBeNull();
    expect(tokens.find((t) => t.token_id === entry.id)).toMatchObject({
      scopes: ['run', 'read_logs'],
      rate_limit_per_min: 120,
      revoked_at: null,
    });
    expect((await h().plan()).steps).toEqual([]);
  });

  it('compares expiresInDays with the value last applied, since the live token only has expires_at', async () => {
    h().config(fullConfig.replace('expiresInDays: 30', 'expiresInDays: 90'));
    const plan = await h().plan();
    expect(plan.steps[0]!.changes).toEqual([{ path: 'expiresInDays', before: 30, after: 90, forcesReplace: true }]);
  });

  it('refuses a replacement of a token with preventDestroy', async () => {
    h().config(fullConfig.replace('rateLimitPerMin: 60', 'rateLimitPerMin: 61\n        lifecycle: { preventDestroy: true }'));
    const error = await h()
      .plan()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanError);
    expect(problemsOf(error)).toEqual([{ code: 'prevent_destroy', address: 'gateway_token.prod/ci', at: 'main.yaml:34' }]);
  });
});
