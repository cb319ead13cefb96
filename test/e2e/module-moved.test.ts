// `moved` into a module: a gateway written out at the top level becomes a module's gateway with one moved block
// (`gateway.payments` -> `module.payments.gateway.main`). Its token moves with it, no write is sent, and the
// next plan has nothing to do.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operations, type OperationName } from '../../src/api/operations.js';
import { world, type World } from './helpers.js';
import { writeModule } from './team-module.js';

// Each test arranges its own world: the steps before the one under test run in-process (the CLI's entry, no
// subprocess); the step under test runs the real CLI.
let w: World;
beforeEach(async () => {
  w = await world();
  writeModule(w.dir);
});
afterEach(async () => w.close());

/** `cplane apply` of `config`, in-process. */
async function appliedInProcess(config: string): Promise<void> {
  w.config(config);
  const run = await w.run(['apply', w.dir, '--auto-approve']);
  if (run.code !== 0) throw new Error(`the arranging apply failed: ${run.stderr}`);
}

const writeRequests = () =>
  Object.entries(w.emulator.stats().byOperation)
    .filter(([name]) => operations[name as OperationName].method !== 'GET')
    .reduce((sum, [, n]) => sum + n, 0);
const stateAddresses = () =>
  Object.keys((JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, unknown> }).resources).sort();

const stem = `version: 1
projects:
  core: { description: Core }
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
`;

/** What the module makes for payments, written out at the top level. */
const writtenOut = `${stem}gateways:
  payments:
    project: core
    name: payments gateway
    slug: gw-payments
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    settings:
      requestsPerMinute: 600
    tokens:
      ci: { scopes: [run] }
`;

const asModule = `${stem}modules:
  payments: { source: ./modules/team, inputs: { team: payments, rpm: 600, project: core, credential: openai } }
moved:
  - from: gateway.payments
    to: module.payments.gateway.main
`;

describe('moved into a module', () => {
  it('applies the gateway written out', async () => {
    w.config(writtenOut);
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('plans only moves, the token with its gateway', async () => {
    await appliedInProcess(writtenOut);
    w.config(asModule);
    const plan = await w.cli(['plan', w.dir]);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('# gateway.payments has moved to module.payments.gateway.main');
    expect(plan.stdout).toContain('# gateway_token.payments/ci has moved to module.payments.gateway_token.main/ci');
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 0 to replace, 0 to remove, 2 to move.');
  });

  it('applies the moves without one API write', async () => {
    await appliedInProcess(writtenOut);
    w.config(asModule);
    const before = writeRequests();
    const run = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(writeRequests()).toBe(before);
    expect(stateAddresses()).toEqual([
      'credential.openai',
      'module.payments.gateway.main',
      'module.payments.gateway_token.main/ci',
      'project.core',
    ]);
  });

  it('has nothing left to do once the moved block is gone', async () => {
    await appliedInProcess(writtenOut);
    await appliedInProcess(asModule);
    w.config(asModule.replace(/moved:[\s\S]*$/, ''));
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });
});
