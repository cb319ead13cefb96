// A project renamed with a `moved` block carries everything declared inside it, at every depth, as each kind's
// parent relation says (issue 40): its records, and their Service Account grants, user and group shares and owner;
// its group role; its gateway (named by the project, not inside it) keeps its address, its tokens with it. The plan
// is only moves (0 to add, 0 to remove), apply sends no write, and the next plan has nothing to do.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { operations, type OperationName } from '../../src/api/operations.js';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { directoryYaml } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const dana = fixtures.users[2]!;
const platform = fixtures.groups[0]!;
const admin = fixtures.roles.find((r) => r.name === 'admin')!.id;
let w: World;

const config = (project: string, moved = '') => `version: 1
projects:
  ${project}:
    name: payments-moved
    groupRoles: { platform: admin }
    records:
      stripe-key:
        value: { generate: { length: 32 } }
        owner: { user: dana }
        grants:
          serviceAccounts: [ci-deployer]
          users: [dana]
          groups: [platform]
credentials:
  openai: { provider: openai, label: openai-project-moved, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: ${project}
    slug: payments-moved-gw
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci: { scopes: [run] }
${directoryYaml({ users: { dana: dana.id }, groups: { platform: platform.id } })}  roles:
    admin: { id: ${admin} }
${moved}`;

/** Write requests (any method but GET) the emulator received. */
const writeRequests = () =>
  Object.entries(w.emulator.stats().byOperation)
    .filter(([name]) => operations[name as OperationName].method !== 'GET')
    .reduce((sum, [, n]) => sum + n, 0);
const stateAddresses = () =>
  Object.keys((JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, unknown> }).resources).sort();

beforeEach(async () => {
  w = await world({ account: acme });
  w.config(config('payments'));
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
});
afterEach(async () => w.close());

it('renaming a project moves its records, grants, shares, owner and role; its gateway and tokens stay: only moves', async () => {
  const before = stateAddresses();
  expect(before).toEqual([
    'credential.openai',
    'gateway.main',
    'gateway_token.main/ci',
    'group_share.payments/stripe-key/platform',
    'project.payments',
    'project_group_role.payments/platform',
    'record.payments/stripe-key',
    'record_owner.payments/stripe-key',
    'service_account_grant.payments/stripe-key/ci-deployer',
    'user_share.payments/stripe-key/dana',
  ]);
  w.config(config('billing', 'moved:\n  - from: project.payments\n    to: project.billing\n'));

  const plan = await w.cli(['plan', w.dir, '--json']);
  expect(plan.stderr).toBe('');
  const json = JSON.parse(plan.stdout) as {
    summary: Record<string, number>;
    steps: { address: string; action: string; moved?: { from: string }; writes: unknown[] }[];
  };
  expect(json.summary).toMatchObject({ add: 0, change: 0, replace: 0, remove: 0, move: 7 });
  expect(
    json.steps
      .filter((s) => s.moved)
      .map((s) => [s.moved!.from, s.address, s.action])
      .sort(),
  ).toEqual([
    ['group_share.payments/stripe-key/platform', 'group_share.billing/stripe-key/platform', 'move'],
    ['project.payments', 'project.billing', 'move'],
    ['project_group_role.payments/platform', 'project_group_role.billing/platform', 'move'],
    ['record.payments/stripe-key', 'record.billing/stripe-key', 'move'],
    ['record_owner.payments/stripe-key', 'record_owner.billing/stripe-key', 'move'],
    ['service_account_grant.payments/stripe-key/ci-deployer', 'service_account_grant.billing/stripe-key/ci-deployer', 'move'],
    ['user_share.payments/stripe-key/dana', 'user_share.billing/stripe-key/dana', 'move'],
  ]);
  expect(json.steps.flatMap((s) => s.writes)).toEqual([]);
  const text = await w.cli(['plan', w.dir]);
  expect(text.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 0 to remove, 7 to move.');

  const writes = writeRequests();
  const applied = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(exitCodes.ok);
  expect(writeRequests()).toBe(writes);
  expect(stateAddresses()).toEqual(before.map((a) => a.replace('.payments', '.billing')).sort());

  const again = await w.cli(['plan', w.dir, '--detailed-exitcode']);
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(exitCodes.ok);
});
