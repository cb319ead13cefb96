// A `generate` value is made once, when cplane creates the object: a checkout without state adopts the live
// object and keeps its value (a live salt is never overwritten), and the plan says so.
import { describe, expect, it } from 'vitest';
import { actions, eachTestHarness } from './harness.js';

const config = `
projects:
  payments:
    description: Payment services
    records:
      salt:
        tags: [payments]
        value: { generate: { length: 32 } }
`;

describe('generated secrets', () => {
  const h = eachTestHarness({ config, converge: true });

  it('a checkout without state keeps the live value of a generated record and says so', async () => {
    await h().state.update((draft) => {
      draft.resources = {};
    });
    const plan = await h().plan();
    expect(actions(plan)).toEqual(['import project.payments', 'import record.payments/salt']);
    const record = plan.steps.find((s) => s.address === 'record.payments/salt')!;
    expect(record.changes.filter((c) => c.path === 'value')).toEqual([]);
    expect(record.writes).toEqual([]);
    expect(record.notes).toEqual(['value keeps its live value (generate makes a value only when cplane creates the object)']);
  });

  it('is generated when cplane creates the record', async () => {
    h().config(config.replace('salt:', 'pepper:'));
    const plan = await h().plan();
    const created = plan.steps.find((s) => s.address === 'record.payments/pepper')!;
    expect(created.action).toBe('create');
    expect(created.secrets).toEqual({ value: { generate: { length: 32 } } });
  });
});
