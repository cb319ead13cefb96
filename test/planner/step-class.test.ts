// The one table from why a step exists to its class, and the class filter of `cplane reconcile`: a step takes the
// strictest class of its causes, and a step that must wait for a withheld one is withheld with it, naming it.
import { describe, expect, it } from 'vitest';
import type { PlanStep, StepCause } from '../../src/plan-model/index.js';
import { classOf, classOfCause } from '../../src/planner/step-class.js';
import { withholdByClass } from '../../src/planner/stages/withheld.js';

const step = (address: string, causes: StepCause[], dependsOn: string[] = []): PlanStep => ({
  address,
  kind: 'gateway_token',
  action: 'update',
  changes: [],
  dependsOn,
  writes: [],
  causes,
  class: classOf(causes),
});

describe('step classes', () => {
  it('maps every cause to one class', () => {
    expect(classOfCause).toEqual({
      configuration: 'change',
      'replace-requested': 'change',
      'deleted-outside': 'drift',
      'changed-outside': 'drift',
      'granted-outside': 'drift',
      expired: 'maintenance',
      renewal: 'maintenance',
      'overlap-ended': 'maintenance',
      'rotation-due': 'maintenance',
      'grant-expired': 'maintenance',
      delivery: 'maintenance',
      'reader-key-changed': 'change',
      'reader-key-offered': 'change',
    });
  });

  it('gives a step the strictest class of its causes, and a step without a cause the class change', () => {
    expect(classOf(['renewal', 'overlap-ended'])).toBe('maintenance');
    expect(classOf(['rotation-due', 'changed-outside'])).toBe('drift');
    expect(classOf(['renewal', 'configuration', 'changed-outside'])).toBe('change');
    expect(classOf([])).toBe('change');
  });

  it('withholds the steps of other classes and those that wait for them, and keeps the rest in order', () => {
    const steps = [
      step('gateway.a', ['configuration']),
      step('gateway_token.a/t', ['renewal'], ['gateway.a']),
      step('gateway_token.b/t', ['renewal']),
      step('record.p/r', ['changed-outside']),
    ];
    const { steps: kept, withheld } = withholdByClass(steps, ['maintenance']);
    expect(kept.map((s) => s.address)).toEqual(['gateway_token.b/t']);
    expect(withheld).toEqual([
      { address: 'gateway.a', kind: 'gateway_token', action: 'update', class: 'change' },
      { address: 'gateway_token.a/t', kind: 'gateway_token', action: 'update', class: 'maintenance', needs: ['gateway.a'] },
      { address: 'record.p/r', kind: 'gateway_token', action: 'update', class: 'drift' },
    ]);
    expect(withholdByClass(steps, ['maintenance', 'drift', 'change']).withheld).toEqual([]);
  });

  it('withholds a step that wraps for a key the API offers whatever the classes, and says why', () => {
    const offered = step('service_account_grant.p/r/ci', ['configuration', 'reader-key-offered']);
    const { steps: kept, withheld } = withholdByClass(
      [offered, step('gateway_token.b/t', ['renewal'], [offered.address])],
      ['maintenance', 'drift', 'change'],
    );
    expect(kept.map((s) => s.address)).toEqual([]);
    expect(withheld).toEqual([
      {
        address: offered.address,
        kind: 'gateway_token',
        action: 'update',
        class: 'change',
        reason: 'wraps for a reader key the API offers, which neither state nor a pin vouches for: only a person applies this',
      },
      { address: 'gateway_token.b/t', kind: 'gateway_token', action: 'update', class: 'maintenance', needs: [offered.address] },
    ]);
  });
});
