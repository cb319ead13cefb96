// Bulk import through the real CLI: ten gateways made outside cplane (with `cplane api`) are adopted by one
// `import` block with forEach over a map of ids, into the instances of one forEach gateway: no create is sent.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { coreAndOpenai, world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(async () => w.close());

const stem = `version: 1
${coreAndOpenai('openai-bulk')}`;
const teams = Array.from({ length: 10 }, (_, i) => `t${i}`);
const ids = new Map<string, string>();

it('has a project and a credential under management, and ten gateways made by hand with cplane api', async () => {
  w.config(stem);
  expect((await w.cli(['apply', w.dir, '--auto-approve'])).code).toBe(0);
  const state = JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { id: string }> };
  const projectId = state.resources['project.core']!.id;
  const credentialId = state.resources['credential.openai']!.id;
  const openai = fixtures.providers.find((p) => p.name === 'openai')!.id;
  for (const team of teams) {
    const body = { projectId, name: `${team} gateway`, slug: `bulk-${team}`, defaultProviderId: openai, defaultModel: 'gpt-4o-mini', credentialIds: [credentialId] };
    const run = await w.cli(['api', 'createGateway', '--body', JSON.stringify(body)]);
    expect(run.code).toBe(0);
    ids.set(team, (JSON.parse(run.stdout) as { gateway_id: string }).gateway_id);
  }
  expect(ids.size).toBe(10);
});

it('plans ten imports and nothing to add, then applies them without a single create', async () => {
  w.config(`${stem}variables:
  ids:
    type: map
    default: ${JSON.stringify(Object.fromEntries(ids))}
gateways:
  team:
    forEach: \${var.ids}
    project: core
    name: \${each.key} gateway
    slug: bulk-\${each.key}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
import:
  - forEach: \${var.ids}
    to: gateway.team[\${each.key}]
    id: \${each.value}
`);
  const plan = await w.cli(['plan', w.dir]);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('Plan: 10 to import, 0 to add, 0 to change, 0 to replace, 0 to remove.');
  expect(plan.stdout).toContain('# gateway.team[t7] will be imported (import block at infra/main.yaml:');

  const creates = () => w.emulator.stats().byOperation.createGateway;
  const before = creates();
  const apply = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  expect(creates()).toBe(before);
  const state = JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { id: string }> };
  for (const [team, id] of ids) expect(state.resources[`gateway.team[${team}]`]?.id).toBe(id);
  expect((await w.cli(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
});
