// lifecycle: preventDestroy makes a removing plan fail, naming the address and its line; ignoreChanges fields are never diffed.
import { describe, expect, it } from 'vitest';
import { PlanError } from '../../src/planner/index.js';
import { eachTestHarness, fullConfig, problemsOf } from './harness.js';

const guarded = fullConfig.replace(
  '    description: Payment services',
  '    description: Payment services\n    lifecycle: { preventDestroy: true, ignoreChanges: [description] }',
);

describe('lifecycle', () => {
  const h = eachTestHarness({ config: guarded, converge: true });

  it('preventDestroy fails a destroy plan with the address and file:line', async () => {
    const error = await h()
      .plan({ mode: 'destroy' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanError);
    expect(problemsOf(error)).toEqual([{ code: 'prevent_destroy', address: 'project.payments', at: 'main.yaml:5' }]);
    expect((error as PlanError).message).toContain('the plan cannot be made (1 problem):');
  });

  it('preventDestroy still holds when the block is deleted from the configuration (it is remembered in state)', async () => {
    h().config('');
    const error = await h()
      .plan()
      .catch((e: unknown) => e);
    expect(problemsOf(error)).toEqual([{ code: 'prevent_destroy', address: 'project.payments', at: 'main.yaml:5' }]);
    expect((error as PlanError).diagnostics[0]?.detail).toMatch(/^Recorded in state from main\.yaml:5/);
  });

  it('ignoreChanges: a field changed outside cplane is neither drift nor a change, and the PATCH keeps its live value', async () => {
    const id = h().state.data.resources['project.payments']!.id;
    await h().client.call('updateProject', { path: { id }, body: { name: 'payments', description: 'edited by hand', isActive: true } });
    expect((await h().plan()).steps).toEqual([]);
    h().config(guarded.replace('payments:\n    description', 'payments:\n    name: payments-renamed\n    description'));
    const plan = await h().plan();
    expect(plan.drift).toEqual([]);
    expect(plan.steps[0]!.changes).toEqual([{ path: 'name', before: 'payments', after: 'payments-renamed' }]);
    expect(plan.steps[0]!.writes[0]!.body).toEqual({ name: 'payments-renamed', description: 'edited by hand', isActive: true });
  });
});
