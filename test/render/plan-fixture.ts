// A hand-built plan with one step of every action, for the renderer tests (rendering is a pure function of it).
import type { Notice, Plan } from '../../src/plan-model/index.js';
import { noticeChecks, noticeOf, type Finding } from '../../src/planner/index.js';

/** The notice the planner's check of `code` makes of `found`. */
export function noticeFor(code: string, found: Finding<Record<string, unknown>>): Notice {
  return noticeOf(
    noticeChecks.find((entry) => entry.code === code)!,
    found,
  );
}

export function samplePlan(overrides: Partial<Plan> = {}): Plan {
  const write = (id: string, operation: string, summary: string) =>
    ({
      id,
      operation,
      path: {},
      idempotencyKey: '00000000-0000-4000-8000-000000000000',
      effects: {},
      summary,
    }) as Plan['steps'][number]['writes'][number];
  return {
    formatVersion: 4,
    notices: [],
    cplaneVersion: '0.1.0',
    createdAt: '2026-11-22T08:00:00.000Z',
    account: 'acc-1',
    mode: 'normal',
    targets: [],
    steps: [
      {
        address: 'project.payments',
        kind: 'project',
        action: 'create',
        changes: [{ path: 'name', after: 'payments' }],
        dependsOn: [],
        writes: [write('project.payments#0', 'createProject', 'POST /projects')],
      },
      {
        address: 'record.payments/key',
        kind: 'record',
        action: 'update',
        changes: [
          { path: 'tags', before: ['a'], after: ['a', 'b'] },
          { path: 'value', sensitive: true },
        ],
        dependsOn: ['project.payments'],
        writes: [write('record.payments/key#0', 'updateRecord', 'PATCH /records/{id}')],
      },
      {
        address: 'credential.openai',
        kind: 'credential',
        action: 'rotate',
        changes: [{ path: 'secret', sensitive: true }],
        dependsOn: [],
        writes: [],
      },
      {
        address: 'gateway_token.prod/ci',
        kind: 'gateway_token',
        action: 'replace',
        reason: 'scopes cannot change in place: a new one is created, then the old one is revoked',
        changes: [{ path: 'scopes', before: ['run'], after: ['read_logs', 'run'], forcesReplace: true }],
        dependsOn: [],
        writes: [],
      },
      {
        address: 'gateway.old',
        kind: 'gateway',
        action: 'delete',
        changes: [],
        dependsOn: [],
        writes: [],
        notes: ['deleting the gateway disables it and revokes its 2 active tokens'],
      },
      {
        address: 'project.legacy',
        kind: 'project',
        action: 'import',
        reason: 'created outside cplane: adopting it',
        adopt: { id: 'p-9' },
        changes: [],
        dependsOn: [],
        writes: [],
      },
      {
        address: 'gateway.prod',
        kind: 'gateway',
        action: 'update',
        changes: [{ path: 'settings.guardrails.blockedTerms', before: 'alpha\nbeta\n', after: 'alpha\ngamma\n' }],
        dependsOn: [],
        writes: [],
      },
    ],
    drift: [
      { address: 'project.payments', kind: 'project', type: 'changed', changes: [{ path: 'description', before: 'a', after: 'b' }] },
      { address: 'gateway.gone', kind: 'gateway', type: 'deleted', changes: [] },
    ],
    unreadable: [
      {
        kind: 'credential',
        operation: 'listCredentials',
        reason: 'human-only operation: a Service Account token cannot read it; no request was sent',
      },
    ],
    summary: { add: 1, change: 3, replace: 1, remove: 1, import: 1, move: 0, forget: 0 },
    ...overrides,
  };
}
