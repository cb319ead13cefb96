// Bulk import through the real CLI: ten gateways made outside cplane (with `cplane api`) are adopted by one
// `import` block with forEach over a map of ids, into the instances of one forEach gateway: no create is sent.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { coreAndOpenai, teamGateways, world, type World } from './helpers.js';

// Each test arranges its own world; the arrangement (apply, `cplane api`) runs the CLI's entry in-process, the
// plan and apply of the import under test run the real CLI.
let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => w.close());

const stem = `version: 1
${coreAndOpenai('openai-bulk')}`;
const teams = Array.from({ length: 10 }, (_, i) => `t${i}`);

/** The project and credential applied, and ten gateways made by hand with `cplane api`: their ids by team. */
async function madeByHand(): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  w.config(stem);
  expect((await w.run(['apply', w.dir, '--auto-approve'])).code).toBe(0);
  const state = JSON.parse(readFileSync(w.statePath, 'utf8')) as { resources: Record<string, { id: string }> };
  const projectId = state.resources['project.core']!.id;
  const credentialId = state.resources['credential.openai']!.id;
  const openai = fixtures.providers.find((p) => p.name === 'openai')!.id;
  for (const team of teams) {
    const body = {
      projectId,
      name: `${team} gateway`,
      slug: `bulk-${team}`,
      defaultProviderId: openai,
      defaultModel: 'gpt-4o-mini',
      credentialIds: [credentialId],
    };
    const run = await w.run(['api', 'createGateway', '--body', JSON.stringify(body)]);
    expect(run.code).toBe(0);
    ids.set(team, (JSON.parse(run.stdout) as { gateway_id: string }).gateway_id);
  }
  return ids;
}

it('has a project and a credential under management, and ten gateways made by hand with cplane api', async () => {
  const ids = await madeByHand();
  expect(ids.size).toBe(10);
  expect(
    (await w.client.listAll('listGateways', {}))
      .filter((g) => g.slug.startsWith('bulk-'))
      .map((g) => g.gateway_id)
      .sort(),
  ).toEqual([...ids.values()].sort());
});

it('plans ten imports and nothing to add, then applies them without a single create', async () => {
  const ids = await madeByHand();
  w.config(`${stem}variables:
  ids:
    type: map
    default: ${JSON.stringify(Object.fromEntries(ids))}
${teamGateways('${var.ids}', { name: '${each.key} gateway', slug: 'bulk-${each.key}' })}import:
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
  expect((await w.run(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
});
