// A deployment's autoApprove rule: CEL over the plan's summary; a rule that does not compile is a diagnostic at its
// place, and one that fails or gives no bool approves nothing.
import { expect, test } from 'vitest';
import { compileAutoApprove } from '../../src/policy/index.js';

const at = { file: 'main.yaml', line: 4, col: 20 };
const counts = { add: 2, change: 1, replace: 0, remove: 0, policyViolations: 0, incomplete: 0 };

test('true approves, false says why', async () => {
  const rule = await compileAutoApprove('staging', 'plan.remove == 0 && plan.replace == 0 && plan.add < 10', at);
  if (typeof rule !== 'function') throw new Error(rule.summary);
  expect(rule(counts)).toEqual({ approved: true });
  expect(rule({ ...counts, remove: 1 })).toEqual({ approved: false, why: 'its autoApprove rule is false for this plan' });
});

test('a rule that does not compile, type-check or give a bool is an error at its place', async () => {
  expect(await compileAutoApprove('staging', 'plan.remove ==', at)).toMatchObject({ code: 'auto_approve_syntax', range: at, summary: expect.stringMatching(/^The autoApprove rule of deployment "staging" is not valid CEL/) });
  expect(await compileAutoApprove('staging', 'remove == 0', at)).toMatchObject({ code: 'auto_approve_type' });
  expect(await compileAutoApprove('staging', '1 + 2', at)).toMatchObject({ code: 'auto_approve_not_bool' });
});

test('a rule that fails or gives no bool approves nothing', async () => {
  const missing = await compileAutoApprove('staging', 'plan.nothing == 0', at);
  if (typeof missing !== 'function') throw new Error(missing.summary);
  expect(missing(counts).approved).toBe(false);
  const notBool = await compileAutoApprove('staging', 'plan.add', at);
  if (typeof notBool !== 'function') throw new Error(notBool.summary);
  expect(notBool(counts)).toEqual({ approved: false, why: 'its autoApprove rule did not give a bool' });
});
