// Removing resources from the configuration: archive, delete and revoke, dependents first; a deleted gateway takes its tokens.
import { describe, expect, it } from 'vitest';
import { renderPlanMarkdown, renderPlanText } from '../../src/render/index.js';
import { actions, eachTestHarness, fullConfig } from './harness.js';

describe('remove', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });

  it('revokes a removed token', async () => {
    h().config(fullConfig.replace(/ {4}tokens:[\s\S]*$/, ''));
    const plan = await h().plan();
    expect(actions(plan)).toEqual(['revoke gateway_token.prod/ci']);
    expect(plan.steps[0]!.writes.map((w) => [w.operation, w.effects])).toEqual([['revokeGatewayToken', { forget: true }]]);
    expect(plan.summary.remove).toBe(1);
    // Terraform's "because it is not in configuration", in every view.
    expect(plan.steps[0]!.reason).toBe('not in configuration');
    expect(renderPlanText(plan, { color: false })).toContain('  # gateway_token.prod/ci will be revoked (not in configuration)\n');
    expect(renderPlanMarkdown(plan)).toContain('| `-` | `gateway_token.prod/ci` | revoke | not in configuration |');
    expect((await h().apply(plan)).failed).toEqual([]);
    expect(h().state.data.resources['gateway_token.prod/ci']).toBeUndefined();
    expect((await h().plan()).steps).toEqual([]);
  });

  it('removes everything in reverse dependency order, and the gateway deletion revokes its tokens without a request', async () => {
    h().config('');
    const plan = await h().plan();
    const order = plan.steps.map((s) => s.address);
    const before = (a: string, b: string) => expect(order.indexOf(a)).toBeLessThan(order.indexOf(b));
    before('record.payments/stripe-key', 'project.payments');
    before('gateway.prod', 'project.payments');
    before('gateway.prod', 'credential.openai');
    before('gateway.prod', 'gateway_token.prod/ci');
    const byAddress = Object.fromEntries(plan.steps.map((s) => [s.address, s]));
    expect(byAddress['gateway.prod']).toMatchObject({
      action: 'delete',
      notes: ['deleting the gateway disables it and revokes its 1 active token'],
    });
    expect(byAddress['gateway_token.prod/ci']).toMatchObject({
      action: 'revoke',
      reason: 'revoked by deleting gateway.prod',
      writes: [],
      forget: true,
      dependsOn: ['gateway.prod'],
    });
    expect(byAddress['otel_export.prod']).toMatchObject({ reason: 'removed with gateway.prod', writes: [] });
    expect(byAddress['project.payments']!.writes.map((w) => [w.operation, w.body])).toEqual([['archiveProject', { archived: true }]]);
    expect(byAddress['credential.openai']!.writes.map((w) => w.operation)).toEqual(['deleteCredential']);
    expect(plan.summary).toMatchObject({ add: 0, remove: 6 });

    expect((await h().apply(plan)).failed).toEqual([]);
    expect(h().state.data.resources).toEqual({});
    expect((await h().plan()).steps).toEqual([]);
  });

  it('plans the same removals for --destroy without touching the configuration', async () => {
    const plan = await h().plan({ mode: 'destroy' });
    expect(plan.mode).toBe('destroy');
    expect(new Set(actions(plan))).toEqual(
      new Set([
        'archive project.payments',
        'archive record.payments/stripe-key',
        'delete credential.openai',
        'delete gateway.prod',
        'revoke gateway_token.prod/ci',
        'delete otel_export.prod',
      ]),
    );
  });

  it('never touches an object it does not manage', async () => {
    await h().client.call('createProject', { body: { accountId: h().state.data.account, name: 'someone-elses', description: '' } });
    h().config('');
    const plan = await h().plan();
    expect(plan.steps.map((s) => s.address)).not.toContain('project.someone-elses');
    expect(plan.steps.every((s) => s.address in h().state.data.resources)).toBe(true);
  });
});
