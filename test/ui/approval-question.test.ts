// The approval prompt names the account (name and id) and the workspace the writes go to.
import { expect, it } from 'vitest';
import { approvalQuestion } from '../../src/cli/commands/apply.js';
import { samplePlan } from '../render/plan-fixture.js';

it('names the account and the workspace, and shows a name from the API without control characters', () => {
  const plan = samplePlan();
  const origin = {
    workspace: 'blue',
    accountName: 'Acme\u001b[31m Staging',
    configDir: '.',
    files: [],
    variables: {},
    state: { path: 'state.json' },
  };
  expect(approvalQuestion('apply', { ...plan, origin }, 'blue')).toBe(
    `Do you want to perform these actions in account Acme\\e[31m Staging (${plan.account}), workspace blue?`,
  );
  expect(approvalQuestion('destroy', { ...plan, origin: { ...origin, accountName: null } }, 'default')).toBe(
    `Do you really want to destroy the objects above in account ${plan.account}, workspace default?`,
  );
});
