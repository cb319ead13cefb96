// The stages of the step generator are plain functions of data: each is tested here without an API.
import { describe, expect, it } from 'vitest';
import type { DesiredResource } from '../../src/config/types.js';
import type { PlanStep } from '../../src/plan-model/index.js';
import { readClocks } from '../../src/planner/stages/clocks.js';
import { AddressBook, objectsInState } from '../../src/planner/stages/address-book.js';
import { linkDependencies } from '../../src/planner/stages/dependencies.js';
import type { PlanProblem } from '../../src/planner/problems.js';
import { summarize } from '../../src/planner/stages/summary.js';
import { scopeToTargets, type TargetInput } from '../../src/planner/stages/targets.js';
import type { ResourceState } from '../../src/state/types.js';

const step = (address: string, action: PlanStep['action'] = 'create', dependsOn: string[] = []): PlanStep => ({
  address,
  kind: address.startsWith('gateway_token.') ? 'gateway_token' : address.startsWith('gateway.') ? 'gateway' : 'project',
  action,
  changes: [],
  dependsOn,
  writes: [],
});
const entry = (kind: ResourceState['kind'], id: string, parents?: Record<string, string>): ResourceState => ({
  kind,
  id,
  inputs: {},
  fingerprints: {},
  createdAt: '',
  updatedAt: '',
  ...(parents ? { parents } : {}),
});
const project = (name: string): DesiredResource =>
  ({
    kind: 'project',
    address: `project.${name}`,
    name,
    attributes: { name, description: '' },
    secrets: {},
    lifecycle: { preventDestroy: false, ignoreChanges: [] },
    dependsOn: [],
    source: { file: 'main.yaml', line: 1, col: 1 },
  }) as unknown as DesiredResource;
const problem = (address: string, code = 'prevent_destroy'): PlanProblem => ({ severity: 'error', code, summary: address, address });

function targetInput(over: Partial<TargetInput>): TargetInput {
  return {
    mode: 'normal',
    targets: [],
    steps: [],
    drift: [],
    unreadable: [],
    problems: [],
    desiredByAddress: new Map(),
    state: {},
    removedWith: new Map(),
    ...over,
  };
}

describe('exclude (the targets stage, inverted)', () => {
  it('leaves out the excluded address and, transitively, what depends on it', () => {
    const steps = [
      step('project.p'),
      step('project.c'),
      step('project.g', 'create', ['project.p', 'project.c']),
      step('project.t', 'create', ['project.g']),
      step('project.other'),
    ];
    const scoped = scopeToTargets(targetInput({ exclude: ['project.c'], steps }));
    expect(scoped.steps.map((s) => s.address)).toEqual(['project.p', 'project.other']);
    expect(['project.p', 'project.c', 'project.g'].map(scoped.covers)).toEqual([true, false, false]);
  });

  it('leaves out a whole module call by its prefix, and every instance of a resource by its name', () => {
    const steps = [
      step('module.payments.gateway.main'),
      step('module.payments.gateway_token.main/ci', 'create', ['module.payments.gateway.main']),
      step('module.search.gateway.main'),
      step('gateway.team[a]'),
      step('gateway.team[b]'),
      step('gateway.teams'),
    ];
    expect(scopeToTargets(targetInput({ exclude: ['module.payments'], steps })).steps.map((s) => s.address)).toEqual([
      'module.search.gateway.main',
      'gateway.team[a]',
      'gateway.team[b]',
      'gateway.teams',
    ]);
    expect(scopeToTargets(targetInput({ exclude: ['gateway.team'], steps })).steps.map((s) => s.address)).toEqual(
      steps
        .slice(0, 3)
        .map((s) => s.address)
        .concat('gateway.teams'),
    );
  });

  it('in a destroy plan, keeps what an excluded address needs: its gateway is not deleted under it', () => {
    const steps = [
      step('gateway_token.prod/ci', 'revoke'),
      step('gateway.prod', 'delete', ['gateway_token.prod/ci']),
      step('project.x', 'archive'),
    ];
    const scoped = scopeToTargets(
      targetInput({
        mode: 'destroy',
        exclude: ['gateway_token.prod/ci'],
        steps,
        removedWith: new Map([['gateway_token.prod/ci', 'gateway.prod']]),
      }),
    );
    expect(scoped.steps.map((s) => s.address)).toEqual(['project.x']);
  });

  it('drops the problems of excluded addresses and names an unknown one', () => {
    const scoped = scopeToTargets(
      targetInput({
        exclude: ['project.b', 'project.nope'],
        steps: [step('project.a'), step('project.b', 'archive')],
        problems: [problem('project.b'), problem('project.a', 'secret_unavailable')],
      }),
    );
    expect(scoped.problems.map((p) => [p.code, p.summary])).toEqual([
      ['unknown_exclude', '--exclude project.nope: no such address in the configuration or state'],
      ['secret_unavailable', 'project.a'],
    ]);
  });
});

describe('targets stage', () => {
  it('keeps the target and, transitively, the steps it depends on', () => {
    const steps = [
      step('project.p'),
      step('project.c'),
      step('project.g', 'create', ['project.p', 'project.c']),
      step('project.t', 'create', ['project.g']),
      step('project.other'),
    ];
    const scoped = scopeToTargets(targetInput({ targets: ['project.t'], steps }));
    expect(scoped.steps.map((s) => s.address)).toEqual(['project.p', 'project.c', 'project.g', 'project.t']);
  });

  it('leaves aside the problems of addresses out of scope (a guard or a secret elsewhere does not block)', () => {
    const scoped = scopeToTargets(
      targetInput({
        targets: ['project.a'],
        steps: [step('project.a'), step('project.b', 'archive')],
        problems: [problem('project.b'), problem('project.a', 'secret_unavailable')],
        desiredByAddress: new Map([['project.a', project('a')]]),
      }),
    );
    expect(scoped.problems.map((p) => [p.code, p.address])).toEqual([['secret_unavailable', 'project.a']]);
  });

  it('takes the objects removed with a targeted parent along with it', () => {
    const steps = [step('gateway.prod', 'delete'), step('gateway_token.prod/ci', 'revoke', ['gateway.prod']), step('project.x', 'archive')];
    const state = {
      'gateway.prod': entry('gateway', 'g1'),
      'gateway_token.prod/ci': entry('gateway_token', 't1', { gatewayId: 'g1' }),
      'project.x': entry('project', 'p1'),
    };
    const scoped = scopeToTargets(
      targetInput({
        mode: 'destroy',
        targets: ['gateway.prod'],
        steps,
        state,
        removedWith: new Map([['gateway_token.prod/ci', 'gateway.prod']]),
      }),
    );
    expect(scoped.steps.map((s) => s.address)).toEqual(['gateway.prod', 'gateway_token.prod/ci']);
  });

  it('names an unknown target with the code unknown_target', () => {
    const scoped = scopeToTargets(targetInput({ targets: ['project.nope'], desiredByAddress: new Map([['project.a', project('a')]]) }));
    expect(scoped.problems.map((p) => p.code)).toEqual(['unknown_target']);
  });
});

describe('summary stage', () => {
  it('counts each action in its column', () => {
    const steps = ['create', 'update', 'rotate', 'replace', 'import', 'archive', 'delete', 'revoke', 'no-op'].map((a, i) =>
      step(`project.p${i}`, a as PlanStep['action']),
    );
    expect(summarize(steps)).toEqual({ add: 1, change: 2, replace: 1, remove: 3, import: 1, move: 0, forget: 0 });
  });
});

describe('address book', () => {
  it('knows state ids, forgets an id that gets replaced, and names adopted objects', () => {
    const book = new AddressBook({ 'project.a': entry('project', 'p1') });
    const known = book.known({ account: 'acct', lookups: new Map(), clocks: readClocks(new Date(), new Date()) });
    expect(known.idOf('project.a')).toBe('p1');
    book.markPending('project.a', 'project');
    expect(known.idOf('project.a')).toBeUndefined();
    expect(known.nameOf('project', 'p1')).toBe('p1');
    book.adopt('project.b', 'project', 'p2');
    expect([known.idOf('project.b'), known.nameOf('project', 'p2'), book.isManaged('project', 'p2')]).toEqual(['p2', 'b', true]);
    expect(book.stateAddressOf('project', 'p1')).toBe('project.a');
  });

  it('answers the same from the index of state made beforehand, and never changes that index nor state', () => {
    const state = { 'project.a': entry('project', 'p1'), 'gateway.g': entry('gateway', 'p1'), 'project.c': entry('project', 'p3') };
    const index = objectsInState(state);
    const asked = (book: AddressBook) => {
      book.markPending('project.a', 'project');
      book.adopt('project.b', 'project', 'p2');
      book.markPending('project.b', 'project');
      book.adopt('project.d', 'project', 'p3');
      const known = book.known({ account: 'acct', lookups: new Map(), clocks: readClocks(new Date(), new Date()) });
      return {
        ids: ['project.a', 'project.b', 'project.c', 'project.d', 'gateway.g'].map((a) => known.idOf(a)),
        owners: [
          book.ownerOf('project', 'p1'),
          book.ownerOf('gateway', 'p1'),
          book.ownerOf('project', 'p2'),
          book.ownerOf('project', 'p3'),
        ],
        inState: [book.stateAddressOf('project', 'p1'), book.stateAddressOf('project', 'p3'), book.stateAddressOf('project', 'p2')],
      };
    };
    const expected = {
      // A pending address has no id; an adopted one has the adopted id; a kind is part of an object's identity.
      ids: [undefined, undefined, 'p3', 'p3', 'p1'],
      owners: [undefined, 'gateway.g', undefined, 'project.d'],
      inState: ['project.a', 'project.c', undefined],
    };
    expect(asked(new AddressBook(state, index))).toEqual(expected);
    expect(asked(new AddressBook(state))).toEqual(expected);
    expect(objectsInState(state)).toEqual(index);
    expect(Object.keys(state)).toEqual(['project.a', 'gateway.g', 'project.c']);
  });
});

describe('dependencies stage', () => {
  it('a removal waits for the steps of objects that used it; a child removed with its parent waits for the parent', () => {
    const state = {
      'gateway.g': entry('gateway', 'g1', { projectId: 'p1' }),
      'project.p': entry('project', 'p1'),
      'gateway_token.g/t': entry('gateway_token', 't1', { gatewayId: 'g1' }),
    };
    const steps = [step('gateway.g', 'delete'), step('project.p', 'archive'), step('gateway_token.g/t', 'revoke')];
    const linked = linkDependencies({
      mode: 'destroy',
      steps,
      desiredByAddress: new Map(),
      state,
      book: new AddressBook(state),
      removedWith: new Map([['gateway_token.g/t', 'gateway.g']]),
    });
    const deps = Object.fromEntries(linked.map((s) => [s.address, s.dependsOn]));
    expect(deps).toEqual({ 'gateway.g': [], 'project.p': ['gateway.g'], 'gateway_token.g/t': ['gateway.g'] });
    expect(steps[1]?.dependsOn).toEqual([]);
  });
});
