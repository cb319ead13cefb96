// Adopting forEach destroys nothing: two gateways written out one by one become instances of one forEach entry,
// with `moved` blocks from the plain addresses to the instances. The plan shows moves (their tokens move with
// them) and apply sends no API write.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { operations, type OperationName } from '../../src/api/operations.js';
import { coreAndOpenai, teamGateways, world, type World } from './helpers.js';

// Each test arranges its own world (the arrangement applied in-process, the step under test through the real CLI).
let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => w.close());

const stem = `version: 1
${coreAndOpenai('openai-moved')}`;
const gateway = (name: string, team: string) => `  ${name}:
    project: core
    name: ${team} gateway
    slug: gw-${team}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci: { scopes: [run] }
`;

function writeRequests(): number {
  const byOperation = w.emulator.stats().byOperation;
  return Object.entries(byOperation)
    .filter(([name]) => operations[name as OperationName].method !== 'GET')
    .reduce((sum, [, n]) => sum + n, 0);
}

const writtenOut = () => `${stem}gateways:\n${gateway('payments', 'payments')}${gateway('search', 'search')}`;

it('applies two gateways written out', async () => {
  w.config(writtenOut());
  const run = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
});

it('moves them into the instances of one forEach entry: moves in the plan, no write at apply', async () => {
  w.config(writtenOut());
  const arranged = await w.run(['apply', w.dir, '--auto-approve']);
  expect(arranged.stderr).toBe('');
  expect(arranged.code).toBe(0);
  w.config(`${stem}${teamGateways('[payments, search]', { name: '${each.key} gateway', body: '    tokens:\n      ci: { scopes: [run] }\n' })}moved:
  - { from: gateway.payments, to: "gateway.team[payments]" }
  - { from: gateway.search, to: "gateway.team[search]" }
`);
  const plan = await w.cli(['plan', w.dir]);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('# gateway.payments has moved to gateway.team[payments]');
  expect(plan.stdout).toContain('# gateway_token.search/ci has moved to gateway_token.team[search]/ci');
  expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 0 to remove, 4 to move.');

  const before = writeRequests();
  const apply = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  expect(writeRequests()).toBe(before);
  expect((await w.run(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
});
