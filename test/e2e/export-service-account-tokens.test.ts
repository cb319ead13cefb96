// Export writes a gateway token issued to a Service Account by the Service Account's name, with its spend limit
// and window; planning the export against the same account finds nothing to do, and against an account
// without that Service Account it is a plan problem at the exported `serviceAccount:` value, not a silent drop.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { acme, shopGateway, world, type World } from './helpers.js';

const staging = fixtures.accounts[1]!.id;
let w: World;
let out: string;
let gatewayYaml: string;

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(`${shopGateway}    tokens:
      checkout:
        scopes: [run]
        serviceAccount: ci-deployer
        spendLimit: "25.00"
        spendWindow: weekly
`);
  const applied = await w.run(['apply', w.dir, '--auto-approve']);
  expect(applied.stderr).toBe('');
  out = join(w.dir, '..', 'exported');
  const exported = await w.cli(['export', '--project', 'shop', '--out', out, '--adopt']);
  expect(exported.stderr).toBe('');
  expect(exported.code).toBe(0);
  expect(exported.stdout).not.toContain('Service Account token');
  gatewayYaml = readFileSync(join(out, 'project-shop.yaml'), 'utf8');
});
afterAll(async () => w.close());

describe('export of a token issued to a Service Account', () => {
  it('writes the Service Account by name, with the spend limit and window', () => {
    expect(gatewayYaml).toMatch(
      / {6}checkout:\n(?: {8}.*\n)* {8}serviceAccount: ci-deployer\n {8}spendLimit: "25\.00"\n {8}spendWindow: weekly\n/,
    );
  });

  it('plans no changes against the same account', async () => {
    const plan = await w.cli(['plan', out, '--account', acme, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('is a plan problem at the serviceAccount value in an account without ci-deployer', async () => {
    const plan = await w.cli(['plan', out, '--account', staging]);
    expect(plan.code).toBe(1);
    const line = gatewayYaml.split('\n').findIndex((l) => l.includes('serviceAccount: ci-deployer')) + 1;
    expect(plan.stderr).toContain(
      `project-shop.yaml:${line}:25: error: gateway_token.main/checkout: no Service Account "ci-deployer" in account ${staging}`,
    );
  });
});
