// What an apply of a plan holds (docs/state.md, "An apply holds its addresses"): its steps' addresses, what they wait
// for, a moved block's old address, every address a write reads by `$ref` (nested too, and the record a `$encrypt` is bound to), and the plan's pending writes.
import { describe, expect, it } from 'vitest';
import { addressesToHold, type Plan, type PlanStep } from '../../src/plan-model/index.js';

const step = (extra: Partial<PlanStep>): PlanStep =>
  ({ address: 'gateway.main', kind: 'gateway', action: 'update', changes: [], dependsOn: [], writes: [], ...extra }) as PlanStep;

describe('addressesToHold', () => {
  it('holds each step, what it waits for and what its writes read, and the pending writes; nothing else', () => {
    const plan: Pick<Plan, 'steps' | 'pendingWrites'> = {
      steps: [
        step({
          address: 'gateway_token.main/ci',
          dependsOn: ['gateway.main'],
          moved: { from: 'gateway_token.main/old' },
          writes: [
            {
              id: 'gateway_token.main/ci#0',
              operation: 'createGatewayToken',
              path: { id: { $ref: 'gateway.main' } },
              body: { grants: [{ record: { $ref: 'record.shop/key' } }] },
              idempotencyKey: 'k',
              effects: { parents: { project: { $ref: 'project.shop' } } },
              summary: 'POST',
            },
            {
              id: 'gateway_token.main/ci#1',
              operation: 'updateRecord',
              path: { id: 'rec_1' },
              body: { value: { $encrypt: { field: 'value', record: { $ref: 'record.shop/bound' }, version: 2 } } },
              idempotencyKey: 'k2',
              effects: {},
              summary: 'PUT',
            },
          ],
        }),
      ],
      pendingWrites: [
        { address: 'project.other', kind: 'project', operation: 'updateProject', becomes: 'updated', savedAt: '2026-01-01T00:00:00Z' },
      ],
    };
    expect(addressesToHold(plan)).toEqual([
      'gateway.main',
      'gateway_token.main/ci',
      'gateway_token.main/old',
      'project.other',
      'project.shop',
      'record.shop/bound',
      'record.shop/key',
    ]);
    expect(addressesToHold({ steps: [] })).toEqual([]);
  });
});
