// Changes to the configuration become in-place updates (PATCH only what differs), a rename, and a secret rotation.
import { describe, expect, it } from 'vitest';
import type { PlanError } from '../../src/planner/index.js';
import { actions, eachTestHarness, fullConfig, problemsOf } from './harness.js';

describe('update in place', () => {
  const h = eachTestHarness({ config: fullConfig, converge: true });

  it('plans field-level updates for every kind and converges after apply', async () => {
    h().config(
      fullConfig
        .replace('description: Payment services', 'description: Payments and refunds')
        .replace('tags: [payments]', 'tags: [payments, pci]')
        .replace('label: OpenAI planner', 'label: OpenAI planner 2')
        .replace('requestsPerMinute: 600', 'requestsPerMinute: 900')
        .replace('exportTraces: false', 'exportTraces: true')
        .replace('      ci:\n        scopes', '      ci:\n        name: ci-renamed\n        scopes'),
    );
    const plan = await h().plan();
    expect(actions(plan)).toEqual([
      'update project.payments',
      'update credential.openai',
      'update record.payments/stripe-key',
      'update gateway.prod',
      'update gateway_token.prod/ci',
      'update otel_export.prod',
    ]);
    const byAddress = Object.fromEntries(plan.steps.map((s) => [s.address, s]));
    expect(byAddress['project.payments']!.changes).toEqual([
      { path: 'description', before: 'Payment services', after: 'Payments and refunds' },
    ]);
    expect(byAddress['project.payments']!.writes[0]).toMatchObject({
      operation: 'updateProject',
      body: { name: 'payments', description: 'Payments and refunds', isActive: true },
    });
    expect(byAddress['record.payments/stripe-key']!.writes.map((w) => [w.operation, w.body])).toEqual([
      ['updateRecord', { tags: ['payments', 'pci'] }],
    ]);
    expect(byAddress['gateway.prod']!.writes.map((w) => [w.operation, w.body])).toEqual([
      ['updateGatewaySettings', { requestsPerMinute: 900 }],
    ]);
    expect(byAddress['gateway_token.prod/ci']!.writes.map((w) => w.operation)).toEqual(['renameGatewayToken']);
    expect(byAddress['otel_export.prod']!.writes.map((w) => w.body)).toEqual([{ exportTraces: true }]);
    expect(plan.summary.change).toBe(6);

    expect((await h().apply(plan)).failed).toEqual([]);
    expect((await h().plan()).steps).toEqual([]);
  });

  it('rotates a credential whose secret changed, and writes a new record value version, both shown as (sensitive)', async () => {
    h().env.OPENAI_KEY = 'sk-openai-planner-secret-222';
    h().env.STRIPE = 'a-new-stripe-value';
    const plan = await h().plan();
    expect(actions(plan)).toEqual(['rotate credential.openai', 'update record.payments/stripe-key']);
    expect(plan.steps[0]!.changes).toEqual([{ path: 'secret', sensitive: true }]);
    expect(plan.steps[0]!.writes.map((w) => [w.operation, w.body])).toEqual([['rotateCredential', { secret: { $secret: 'secret' } }]]);
    expect(plan.steps[0]!.secrets).toEqual({ secret: { env: 'OPENAI_KEY' } });
    const recordId = h().state.data.resources['record.payments/stripe-key']!.id;
    expect(plan.steps[1]!.writes.map((w) => [w.operation, w.body])).toEqual([
      ['createRecordVersion', { $encrypt: { field: 'value', record: recordId, version: 2 } }],
    ]);
    expect((await h().apply(plan)).failed).toEqual([]);
    expect((await h().plan()).steps).toEqual([]);
  });

  it('refuses to plan when a secret source is missing, naming the variable and never a value', async () => {
    delete h().env.OTEL_AUTH;
    const error = (await h()
      .plan()
      .catch((e: unknown) => e)) as PlanError;
    expect(problemsOf(error)).toEqual([{ code: 'secret_unavailable', address: 'otel_export.prod', at: 'main.yaml:26' }]);
    expect(error.diagnostics[0]?.summary).toBe(
      'otel_export.prod: Secret source "env OTEL_AUTH": environment variable OTEL_AUTH is not set',
    );
  });
});
