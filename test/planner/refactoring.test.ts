// The refactoring stage is a plain function of data (blocks + state): tested here without an API.
import { describe, expect, it } from 'vitest';
import type { RefactoringBlocks } from '../../src/config/types.js';
import { childDestination, forgetSteps, resolveRefactoring, withMoves } from '../../src/planner/stages/refactoring.js';
import { summarize } from '../../src/planner/stages/summary.js';
import type { ResourceState } from '../../src/state/types.js';

const at = { file: 'main.yaml', line: 40, col: 5 };
const entry = (kind: ResourceState['kind'], id: string, extra: Partial<ResourceState> = {}): ResourceState => ({
  kind,
  id,
  inputs: {},
  fingerprints: {},
  createdAt: '',
  updatedAt: '',
  ...extra,
});
const blocks = (over: Partial<RefactoringBlocks>): RefactoringBlocks => ({ moved: [], removed: [], imports: [], ...over });

const state = {
  'project.shop': entry('project', 'p1'),
  'gateway.search-gw': entry('gateway', 'g1', { inputs: { project: 'shop' } }),
  'gateway_token.search-gw/ci': entry('gateway_token', 't1', {
    parents: { gatewayId: 'g1' },
    inputs: { gateway: 'search-gw', name: 'ci' },
  }),
  'otel_export.search-gw': entry('otel_export', 'g1', {
    parents: { gatewayId: 'g1' },
    inputs: { gateway: 'search-gw' },
    fingerprints: { 'headers.Authorization': 'f' },
  }),
  'gateway.other': entry('gateway', 'g2'),
  'gateway_token.other/ci': entry('gateway_token', 't2', { parents: { gatewayId: 'g2' }, inputs: { gateway: 'other' } }),
};

describe('moved', () => {
  it('renames a moved credential in the gateways that name it, recorded with no write', () => {
    const named = {
      'credential.own': entry('credential', 'c1'),
      'gateway.main': entry('gateway', 'g1', { inputs: { project: 'core', credentials: ['own', 'other'] } }),
    };
    const out = resolveRefactoring({
      blocks: blocks({ moved: [{ from: 'credential.own', to: 'credential.primary', source: at }] }),
      state: named,
    });
    expect(out.state['gateway.main']?.inputs).toEqual({ project: 'core', credentials: ['primary', 'other'] });
    expect([...out.rewritten]).toEqual([['gateway.main', { project: 'core', credentials: ['primary', 'other'] }]]);
  });

  it("renames a referrer where an earlier move put it: a module's gateway moved, then the project it names", () => {
    const inModule = {
      'project.core': entry('project', 'p1'),
      'module.team.gateway.main': entry('gateway', 'g1', { parents: { projectId: 'p1' }, inputs: { project: 'core' } }),
    };
    const out = resolveRefactoring({
      blocks: blocks({
        moved: [
          { from: 'module.team.gateway.main', to: 'module.squad.gateway.main', source: at },
          { from: 'project.core', to: 'project.base', source: at },
        ],
      }),
      state: inModule,
    });
    expect(out.problems).toEqual([]);
    expect(Object.keys(out.state).sort()).toEqual(['module.squad.gateway.main', 'project.base']);
    expect(out.state['module.squad.gateway.main']?.inputs).toEqual({ project: 'base' });
  });

  it('renames the gateway and what lives under it, with the parent reference and fingerprint address kept right', () => {
    const out = resolveRefactoring({ blocks: blocks({ moved: [{ from: 'gateway.search-gw', to: 'gateway.search', source: at }] }), state });
    expect(out.problems).toEqual([]);
    expect(Object.keys(out.state).sort()).toEqual([
      'gateway.other',
      'gateway.search',
      'gateway_token.other/ci',
      'gateway_token.search/ci',
      'otel_export.search',
      'project.shop',
    ]);
    expect([...out.movedFrom]).toEqual([
      ['gateway.search', 'gateway.search-gw'],
      ['gateway_token.search/ci', 'gateway_token.search-gw/ci'],
      ['otel_export.search', 'otel_export.search-gw'],
    ]);
    expect(out.state['gateway_token.search/ci']?.inputs).toEqual({ gateway: 'search', name: 'ci' });
    expect(out.state['otel_export.search']?.fingerprintAddress).toBe('otel_export.search-gw');
    // The input is left as it was.
    expect(state['gateway_token.search-gw/ci'].inputs.gateway).toBe('search-gw');
  });

  it('follows a chain to its end', () => {
    const out = resolveRefactoring({
      blocks: blocks({
        moved: [
          { from: 'project.shop', to: 'project.store', source: at },
          { from: 'project.store', to: 'project.market', source: at },
        ],
      }),
      state,
    });
    expect(out.movedFrom.get('project.market')).toBe('project.shop');
    expect('project.store' in out.state).toBe(false);
  });

  it('does nothing once applied (from no longer in state)', () => {
    const out = resolveRefactoring({ blocks: blocks({ moved: [{ from: 'project.gone', to: 'project.shop', source: at }] }), state });
    expect(out.movedFrom.size).toBe(0);
    expect(out.state).toEqual(state);
  });

  it('refuses to move onto an address state already has (moved_target_exists)', () => {
    const out = resolveRefactoring({ blocks: blocks({ moved: [{ from: 'gateway.search-gw', to: 'gateway.other', source: at }] }), state });
    expect(out.problems.map((p) => [p.code, p.address, p.range?.line])).toEqual([
      ['moved_target_exists', 'gateway.other', 40],
      ['moved_target_exists', 'gateway_token.other/ci', 40],
    ]);
  });

  it('puts each rename on its step, or a move step of its own, counted in the summary', () => {
    const refactoring = resolveRefactoring({
      blocks: blocks({ moved: [{ from: 'gateway.search-gw', to: 'gateway.search', source: at }] }),
      state,
    });
    const update = {
      id: 'gateway.search',
      address: 'gateway.search',
      kind: 'gateway' as const,
      action: 'update' as const,
      changes: [],
      dependsOn: [],
      writes: [],
    };
    const steps = withMoves([update], refactoring, refactoring.state);
    expect(steps.map((s) => [s.action, s.address, s.moved?.from, s.writes.length])).toEqual([
      ['update', 'gateway.search', 'gateway.search-gw', 0],
      ['move', 'gateway_token.search/ci', 'gateway_token.search-gw/ci', 0],
      ['move', 'otel_export.search', 'otel_export.search-gw', 0],
    ]);
    expect(steps[1]?.inputs).toEqual({ gateway: 'search', name: 'ci' });
    expect(summarize(steps)).toMatchObject({ change: 1, move: 3, add: 0, remove: 0 });
  });

  it('finds a child address from its parent name only when the child follows it', () => {
    expect(childDestination('gateway_token.a/ci', 'gateway.a', 'gateway.b')).toBe('gateway_token.b/ci');
    expect(childDestination('otel_export.a', 'gateway.a', 'gateway.b')).toBe('otel_export.b');
    expect(childDestination('gateway_token.ab/ci', 'gateway.a', 'gateway.b')).toBeUndefined();
  });
});

describe('removed', () => {
  it('forgets the object and what lives under it, without a write', () => {
    const out = resolveRefactoring({ blocks: blocks({ removed: [{ from: 'gateway.other', source: at }] }), state });
    expect(out.forgotten).toEqual([
      { address: 'gateway.other', kind: 'gateway', reason: 'removed block at main.yaml:40' },
      { address: 'gateway_token.other/ci', kind: 'gateway_token', reason: 'removed with gateway.other' },
    ]);
    expect('gateway.other' in out.state).toBe(false);
    const steps = forgetSteps(out);
    expect(steps.map((s) => [s.action, s.forget, s.writes.length])).toEqual([
      ['forget', true, 0],
      ['forget', true, 0],
    ]);
    expect(summarize(steps)).toMatchObject({ forget: 2, remove: 0 });
  });
});

describe('import', () => {
  it('keeps the import of an address not in state, allows the same object again, refuses another (import_already_managed)', () => {
    const out = resolveRefactoring({
      blocks: blocks({
        imports: [
          { to: 'project.legacy', id: 'p9', source: at },
          { to: 'project.shop', id: 'p1', source: at },
          { to: 'gateway.other', id: 'g7', source: at },
        ],
      }),
      state,
    });
    expect([...out.imports.keys()]).toEqual(['project.legacy']);
    expect(out.problems.map((p) => [p.code, p.address])).toEqual([['import_already_managed', 'gateway.other']]);
  });
});

describe('moving a project', () => {
  const projectState = {
    'project.shop': entry('project', 'p1'),
    'record.shop/key': entry('record', 'r1', { parents: { projectId: 'p1' }, inputs: { project: 'shop', name: 'key' } }),
    'gateway.prod': entry('gateway', 'g1', { parents: { projectId: 'p1' }, inputs: { project: 'shop', name: 'Prod' } }),
  };

  it('moves its records (declared inside it) and renames the project a gateway names, without moving the gateway', () => {
    const out = resolveRefactoring({
      blocks: blocks({ moved: [{ from: 'project.shop', to: 'project.store', source: at }] }),
      state: projectState,
    });
    expect([...out.movedFrom]).toEqual([
      ['project.store', 'project.shop'],
      ['record.store/key', 'record.shop/key'],
    ]);
    expect(out.state['record.store/key']?.inputs).toEqual({ project: 'store', name: 'key' });
    expect(out.state['gateway.prod']?.inputs).toEqual({ project: 'store', name: 'Prod' });
    const steps = withMoves([], out, out.state);
    expect(steps.map((s) => [s.action, s.address, s.inputs?.project])).toEqual([
      ['move', 'project.store', undefined],
      ['move', 'record.store/key', 'store'],
      ['no-op', 'gateway.prod', 'store'],
    ]);
  });

  it('a removed project forgets its records, not the gateways that name it', () => {
    const out = resolveRefactoring({ blocks: blocks({ removed: [{ from: 'project.shop', source: at }] }), state: projectState });
    expect(out.forgotten.map((f) => f.address)).toEqual(['project.shop', 'record.shop/key']);
  });
});

describe('what lives under a record, which lives under a project', () => {
  const deep = {
    'project.payments': entry('project', 'p1'),
    'record.payments/stripe-key': entry('record', 'r1', {
      parents: { projectId: 'p1' },
      inputs: { project: 'payments', name: 'stripe-key' },
    }),
    'user_share.payments/stripe-key/dana': entry('user_share', 'r1/u1', {
      parents: { recordId: 'r1' },
      inputs: { record: 'payments/stripe-key', reader: 'dana' },
    }),
    'record_owner.payments/stripe-key': entry('record_owner', 'r1', {
      parents: { recordId: 'r1' },
      inputs: { record: 'payments/stripe-key', user: 'dana' },
    }),
  };

  it('moves with the project, naming the moved record', () => {
    const out = resolveRefactoring({
      blocks: blocks({ moved: [{ from: 'project.payments', to: 'project.billing', source: at }] }),
      state: deep,
    });
    expect([...out.movedFrom].sort()).toEqual([
      ['project.billing', 'project.payments'],
      ['record.billing/stripe-key', 'record.payments/stripe-key'],
      ['record_owner.billing/stripe-key', 'record_owner.payments/stripe-key'],
      ['user_share.billing/stripe-key/dana', 'user_share.payments/stripe-key/dana'],
    ]);
    expect(out.state['user_share.billing/stripe-key/dana']?.inputs).toEqual({ record: 'billing/stripe-key', reader: 'dana' });
  });

  it('is forgotten with the project', () => {
    const out = resolveRefactoring({ blocks: blocks({ removed: [{ from: 'project.payments', source: at }] }), state: deep });
    expect(out.forgotten.map((f) => [f.address, f.reason])).toEqual([
      ['project.payments', 'removed block at main.yaml:40'],
      ['record.payments/stripe-key', 'removed with project.payments'],
      ['record_owner.payments/stripe-key', 'removed with project.payments'],
      ['user_share.payments/stripe-key/dana', 'removed with project.payments'],
    ]);
    expect(out.state).toEqual({});
  });
});
