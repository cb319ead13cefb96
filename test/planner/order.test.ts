// Steps come after the steps they depend on (--target has its own story: stages.test.ts).
import { describe, expect, it } from 'vitest';
import { sortSteps } from '../../src/planner/stages/order.js';
import type { PlanStep } from '../../src/plan-model/index.js';

const step = (address: string, dependsOn: string[] = []): PlanStep => ({
  address,
  kind: 'project',
  action: 'create',
  changes: [],
  dependsOn,
  writes: [],
});

describe('step order', () => {
  it('puts dependencies first and otherwise keeps the given order', () => {
    const sorted = sortSteps([step('c', ['b']), step('a'), step('b', ['a']), step('d')]);
    expect(sorted.map((s) => s.address)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('refuses a cycle, naming the steps in it', () => {
    expect(() => sortSteps([step('a', ['b']), step('b', ['a']), step('c')])).toThrow('plan steps depend on each other in a cycle: a, b');
  });
});
