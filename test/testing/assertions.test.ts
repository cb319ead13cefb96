// Assertions shared by several runs of a file: compiled once, each rule once in the worker, and each run still
// judged over its own facts, with what a false one saw.
import { afterEach, describe, expect, it } from 'vitest';
import { AssertionChecker, compileAssertion, type Assertion } from '../../src/testing/assertions.js';

async function compiled(expression: string): Promise<Assertion> {
  const result = await compileAssertion(expression);
  if ('problem' in result) throw new Error(result.problem.summary);
  return result;
}

let checker: AssertionChecker | undefined;
afterEach(() => checker?.close());

describe('assertions repeated across runs', () => {
  it('compile once per text, and a wrong one still says what is wrong', async () => {
    expect(await compileAssertion('plan.add == 3')).toBe(await compileAssertion('plan.add == 3'));
    const wrong = await compileAssertion('plan.add ==');
    expect('problem' in wrong && wrong.problem.code).toBe('assertion_syntax');
  });

  it('are judged over each run its own facts, with the values a false one saw', async () => {
    const shared = await compiled('plan.add == 3');
    const first = [shared, await compiled('plan.change == 0 && plan.add > 2')];
    const second = [shared, await compiled('plan.change == 1 && plan.add > 2')];
    checker = new AssertionChecker([first, second]);
    const facts = (add: number) => ({ plan: { add: BigInt(add), change: 0n }, steps: {}, policies: [], drift: [], apply: null });
    expect(await checker.check(first, facts(3))).toEqual([{ passed: true }, { passed: true }]);
    expect(await checker.check(second, facts(4))).toEqual([
      { passed: false, message: 'was false: plan.add = 4' },
      { passed: false, message: 'was false: plan.change = 0' },
    ]);
  });
});
