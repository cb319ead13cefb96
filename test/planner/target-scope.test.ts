// --target follows Terraform: only the targets and what they depend on are planned; guards and secrets of other
// addresses neither block nor are required; removing a parent takes its children out of state.
import { describe, expect, it } from 'vitest';
import { actions, eachTestHarness, fullConfig } from './harness.js';

const guarded = fullConfig.replace(
  '    description: Payment services',
  '    description: Payment services\n    lifecycle: { preventDestroy: true }',
);

describe('--target scope', () => {
  const h = eachTestHarness({ config: guarded, converge: true });

  it('destroy --target of a gateway is not refused by an unrelated preventDestroy, and takes its tokens and export out of state', async () => {
    const plan = await h().plan({ mode: 'destroy', targets: ['gateway.prod'] });
    expect(actions(plan).sort()).toEqual(['delete gateway.prod', 'delete otel_export.prod', 'revoke gateway_token.prod/ci']);
    expect((await h().apply(plan)).failed).toEqual([]);
    expect(Object.keys(h().state.data.resources).sort()).toEqual(['credential.openai', 'project.payments', 'record.payments/stripe-key']);
    // Nothing is later reported as deleted outside cplane.
    const next = await h().plan({ mode: 'destroy', targets: ['credential.openai'] });
    expect(next.drift).toEqual([]);
  });

  it('a missing secret of another address does not block a targeted plan', async () => {
    h().config(guarded.replace('Payment services', 'Payments'));
    delete h().env.STRIPE;
    const plan = await h().plan({ targets: ['project.payments'] });
    expect(actions(plan)).toEqual(['update project.payments']);
  });

  it('a target without a change of its own still plans the pending change of what it depends on', async () => {
    h().config(guarded.replace('    name: Prod', '    name: Production'));
    const plan = await h().plan({ targets: ['gateway_token.prod/ci'] });
    expect(actions(plan)).toEqual(['update gateway.prod']);
  });
});
