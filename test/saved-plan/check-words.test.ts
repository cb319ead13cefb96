// A saved plan is compared with a fresh one by what it would do, not by the words that explain it: a note that moves
// with the clock (`expired 2 days ago` made yesterday, `expired 3 days ago` today) does not make it stale.
import { describe, expect, it } from 'vitest';
import type { Plan, PlanStep } from '../../src/plan-model/index.js';
import { stepDifferences } from '../../src/saved-plan/index.js';

const step = (days: number, scopes = ['run']): PlanStep => ({
  address: 'gateway_token.main/ci',
  kind: 'gateway_token',
  action: 'replace',
  reason: `it expired ${days} days ago: a new one is created, then the old one is revoked`,
  changes: [{ path: 'expiresAt', before: '2026-11-22T00:00:00.000Z', note: `expired ${days} days ago`, forcesReplace: true }],
  dependsOn: [],
  writes: [
    {
      id: 'gateway_token.main/ci#0',
      idempotencyKey: `key-${days}`,
      operation: 'createGatewayToken',
      path: { id: 'g1' },
      body: { name: 'ci', scopes },
      effects: {},
      summary: 'create token ci',
    },
  ],
});
const plan = (s: PlanStep): Plan => ({
  formatVersion: 4,
  notices: [],
  cplaneVersion: '0',
  createdAt: '',
  account: 'a',
  mode: 'normal',
  targets: [],
  steps: [s],
  drift: [],
  unreadable: [],
  summary: { add: 0, change: 0, replace: 1, remove: 0, import: 0, move: 0, forget: 0 },
});

describe('saved plan comparison', () => {
  it('ignores the reason and the notes of changes', () => {
    expect(stepDifferences(plan(step(2)), plan(step(3)))).toEqual([]);
  });

  it('still sees a different write', () => {
    expect(stepDifferences(plan(step(2)), plan(step(2, ['run', 'read_logs'])))).toEqual([
      'gateway_token.main/ci: differs at writes[0].body.scopes (1 item(s) saved, 2 now)',
    ]);
  });
});
