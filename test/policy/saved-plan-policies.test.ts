// How apply PLANFILE compares the saved plan's policy report with a fresh plan's: other policies, or other
// findings, refuse the saved plan; where the resource is shown (relative to the folder each ran in) does not.
import { expect, it } from 'vitest';
import { policyDifferences } from '../../src/saved-plan/index.js';
import type { Plan, PolicyFinding } from '../../src/plan-model/index.js';
import { samplePlan } from '../render/plan-fixture.js';

const finding: PolicyFinding = {
  policy: 'spend-limit',
  level: 'advisory',
  address: 'gateway.main',
  kind: 'gateway',
  outcome: 'violated',
  message: 'no limit',
  at: { file: 'infra/main.yaml', line: 7, col: 3 },
};
const withReport = (digest: string, findings: PolicyFinding[]): Plan =>
  samplePlan({ policies: { digest: digest.repeat(64), policies: 1, checked: 1, findings } });

it('the same policies and findings: nothing to say, even when the files are shown from another folder', () => {
  expect(
    policyDifferences(
      withReport('a', [finding]),
      withReport('a', [{ ...finding, at: { file: '../checkout/infra/main.yaml', line: 7, col: 3 } }]),
    ),
  ).toEqual([]);
  expect(policyDifferences(samplePlan(), samplePlan())).toEqual([]);
});

it('other policies, policies added, or other findings are each named', () => {
  expect(policyDifferences(withReport('a', []), withReport('b', []))).toEqual([
    'the policies changed since the plan was made (1 then, 1 now)',
  ]);
  expect(policyDifferences(samplePlan(), withReport('b', []))).toEqual(['the policies changed since the plan was made (none then, 1 now)']);
  expect(policyDifferences(withReport('a', [finding]), withReport('a', [{ ...finding, message: 'other' }]))).toEqual([
    'the policy findings differ from a plan made now (at findings[0].message)',
  ]);
  expect(policyDifferences(withReport('a', []), withReport('a', [finding]))).toEqual([
    'the policy findings differ from a plan made now (at findings (0 item(s) saved, 1 now))',
  ]);
});
