// --target plans only the targeted addresses and what they depend on; an unknown target is an error with suggestions.
import { describe, expect, it } from 'vitest';
import type { PlanError } from '../../src/planner/index.js';
import { actions, eachTestHarness, fullConfig, problemsOf } from './harness.js';

describe('--target', () => {
  const h = eachTestHarness({ config: fullConfig });

  it('keeps the target and, transitively, its dependencies', async () => {
    const plan = await h().plan({ targets: ['gateway_token.prod/ci'] });
    expect(actions(plan)).toEqual([
      'create project.payments',
      'create credential.openai',
      'create gateway.prod',
      'create gateway_token.prod/ci',
    ]);
    expect(plan.targets).toEqual(['gateway_token.prod/ci']);
    expect(plan.summary.add).toBe(4);
    expect((await h().apply(plan)).failed).toEqual([]);
    expect(actions(await h().plan())).toEqual(['create record.payments/stripe-key', 'create otel_export.prod']);
  });

  it('refuses an address that is neither configured nor in state', async () => {
    const error = await h()
      .plan({ targets: ['gateway.staging', 'gateway_token.prod'] })
      .catch((e: unknown) => e);
    expect(problemsOf(error)).toEqual([{ code: 'unknown_target' }, { code: 'unknown_target' }]);
    expect((error as PlanError).diagnostics.map((d) => d.detail)).toEqual([
      undefined,
      'Did you mean gateway.prod, otel_export.prod, gateway_token.prod/ci?',
    ]);
  });
});
