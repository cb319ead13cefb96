// Adopting an account whose token was delivered by hand (issue 50 §3): an account made outside this configuration
// (here by another state) with a gateway token delivered to a record is added with `export --as-deployment`, and its
// first `apply --deployment` works: the adopted token cannot be read back, so the value delivered to the record is
// kept as it is live (the plan says so), and the next token cplane issues is delivered there.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { extraAccount } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

const [a, b] = [extraAccount(1).id, extraAccount(2).id];
const body = (label: string) => `projects:
  core:
    description: Core
    records:
      ci-token: {}
credentials:
  openai: { provider: openai, label: ${label}, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: core
    name: Delivery gateway
    slug: delivery-main
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci:
        scopes: [run]
        deliverTo: { record: core/ci-token }
`;
let w: World;
let fleet: string;
beforeAll(async () => {
  w = await world({ accounts: 2 });
  // Account B made by hand: applied from a folder of its own, whose state the fleet never sees.
  w.config(`version: 1\n${body('openai-delivery')}`);
  expect((await w.run(['apply', w.dir, '--auto-approve', '--account', b])).code).toBe(0);
  fleet = join(w.temp, 'fleet');
  mkdirSync(fleet);
  writeFileSync(join(fleet, 'main.yaml'), `version: 1\ndeployments:\n  a: { account: ${a} }\n${body('openai-delivery')}`);
  const first = await w.run(['apply', '--deployment', 'a', fleet, '--auto-approve']);
  expect(first.code, first.stdout + first.stderr).toBe(0);
});
afterAll(() => w.close());

it('adds the account with export --as-deployment, and its first apply adopts the delivered token', async () => {
  const exported = await w.cli(['export', '--account', b, '--as-deployment', 'b', fleet]);
  expect(exported.code, exported.stderr).toBe(0);
  const applied = await w.cli(['apply', '--deployment', 'b', fleet, '--auto-approve']);
  expect(applied.stderr).not.toContain('no plaintext sealed in state');
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  expect(applied.stdout).toContain(
    '! value keeps its live value: gateway_token.main/ci is adopted and its plaintext cannot be read back; the next token cplane issues for it (renewal, or --replace gateway_token.main/ci) is delivered here',
  );
  expect(applied.stdout).toContain('Plan: 5 to import, 0 to add, 0 to change, 0 to replace, 0 to remove.');
  expect(applied.stdout).toContain('Deployments: all 1 applied (b).');

  // Adopted, it is managed: the next plan has nothing to do.
  const next = await w.cli(['plan', '--deployment', 'b', fleet, '--detailed-exitcode']);
  expect(next.code, next.stdout + next.stderr).toBe(0);
  // A new token, issued by cplane, is delivered to the record (and the hand-delivered one revoked after it).
  const replaced = await w.cli(['apply', '--deployment', 'b', fleet, '--replace', 'gateway_token.main/ci', '--auto-approve']);
  expect(replaced.code, replaced.stdout + replaced.stderr).toBe(0);
  expect(replaced.stdout).toContain('record.core/ci-token');
  const after = await w.cli(['plan', '--deployment', 'b', fleet, '--detailed-exitcode']);
  expect(after.code, after.stdout).toBe(0);
});
