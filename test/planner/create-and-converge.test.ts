// From an empty account: every kind is created in dependency order, and after apply a second plan has no changes.
import { describe, expect, it } from 'vitest';
import { hasChanges } from '../../src/plan-model/index.js';
import { renderPlanText } from '../../src/render/index.js';
import { actions, eachTestHarness, fullConfig } from './harness.js';

describe('create, then converge', () => {
  const h = eachTestHarness();

  it('creates every kind, parents first, with references to ids made earlier in the apply', async () => {
    h().config(fullConfig);
    const plan = await h().plan();
    expect(actions(plan)).toEqual([
      'create project.payments',
      'create credential.openai',
      'create record.payments/stripe-key',
      'create gateway.prod',
      'create gateway_token.prod/ci',
      'create otel_export.prod',
    ]);
    const gateway = plan.steps.find((s) => s.address === 'gateway.prod')!;
    expect(gateway.dependsOn.sort()).toEqual(['credential.openai', 'project.payments']);
    expect(gateway.writes.map((w) => w.operation)).toEqual(['createGateway', 'updateGatewaySettings']);
    expect(gateway.writes[0]!.body).toMatchObject({
      projectId: { $ref: 'project.payments' },
      credentialIds: [{ $ref: 'credential.openai' }],
    });
    expect(plan.summary).toEqual({ add: 6, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 });
    expect(new Set(plan.steps.flatMap((s) => s.writes.map((w) => w.idempotencyKey))).size).toBe(plan.steps.flatMap((s) => s.writes).length);

    const result = await h().apply(plan);
    expect(result.failed).toEqual([]);
    const again = await h().plan();
    expect(again.steps).toEqual([]);
    expect(again.drift).toEqual([]);
    expect(hasChanges(again)).toBe(false);
    expect(renderPlanText(again, { color: false })).toBe('No changes. Your infrastructure matches the configuration.\n');
  });

  it("shows a record's format in its create, and converges with it", async () => {
    h().config(fullConfig.replace('        tags: [payments]\n', '        format: json\n        tags: [payments]\n'));
    const plan = await h().plan();
    const record = plan.steps.find((s) => s.address === 'record.payments/stripe-key')!;
    expect(record.changes).toContainEqual({ path: 'format', after: 'json' });
    expect(renderPlanText(plan, { color: false })).toMatch(
      /\+ {3}record "payments\/stripe-key"\n(?: {6}\+ .*\n)*? {6}\+ format = "json"\n/,
    );
    expect((await h().apply(plan)).failed).toEqual([]);
    expect(hasChanges(await h().plan())).toBe(false);
  });
});
