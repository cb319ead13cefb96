// forEach through the real CLI: three teams' gateways (each with a token and an OTel export) made from one map,
// then one key removed from the map: the plan removes exactly that instance and its children, nothing else changes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { coreAndOpenai, liveInventory, teamGateways, world, type World } from './helpers.js';

/** The teams' gateways and tokens the API holds (the account has fixture objects of its own). */
async function teamsLive() {
  const live = await liveInventory(w.client);
  return {
    gateways: live.gateways.filter((g) => g.startsWith('gw-')),
    tokens: live.tokens.filter((t) => t.startsWith('gw-')),
    projects: live.projects,
  };
}

// Each test arranges its own world (the arrangement applied in-process, the step under test through the real CLI).
let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => w.close());

const teamBody = `    settings:
      requestsPerMinute: \${each.value.rpm}
    otelExport:
      endpoint: https://otel.example.com/\${each.key}
    tokens:
      ci: { scopes: [run] }
`;
const config = (teams: Record<string, number>) => `version: 1
variables:
  teams:
    type: map
    default: ${JSON.stringify(Object.fromEntries(Object.entries(teams).map(([team, rpm]) => [team, { rpm }])))}
${coreAndOpenai('openai-teams')}${teamGateways('${var.teams}', { name: '${each.key} gateway', body: teamBody })}`;

it('applies three teams from one map: a gateway, an OTel export and a token each', async () => {
  w.config(config({ payments: 600, search: 100, support: 60 }));
  const run = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('# gateway.team[search] will be created');
  expect(run.stdout).toContain('# gateway_token.team[search]/ci will be created');
  expect(run.stdout).toContain('# otel_export.team[search] will be created');
  expect(run.stdout).toContain('Plan: 11 to add, 0 to change, 0 to replace, 0 to remove.');
  const live = await teamsLive();
  expect(live.gateways).toEqual(['gw-payments', 'gw-search', 'gw-support']);
  expect(live.tokens).toEqual(['gw-payments/ci', 'gw-search/ci', 'gw-support/ci']);
  const search = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'gw-search')!;
  expect(search.settings).toMatchObject({ requestsPerMinute: 100 });
});

/** The three teams applied in-process: the arrangement of the tests after the first. */
async function threeTeamsApplied(): Promise<void> {
  w.config(config({ payments: 600, search: 100, support: 60 }));
  const run = await w.run(['apply', w.dir, '--auto-approve']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
}

it('plans no change when applied again', async () => {
  await threeTeamsApplied();
  const run = await w.cli(['plan', w.dir, '--detailed-exitcode']);
  expect(run.stdout).toContain('No changes.');
  expect(run.code).toBe(0);
});

it('removing one key plans the removal of exactly that instance and its children', async () => {
  await threeTeamsApplied();
  w.config(config({ payments: 600, support: 60 }));
  const json = JSON.parse((await w.cli(['plan', w.dir, '--json'])).stdout) as { steps: { address: string; action: string }[] };
  expect(json.steps.map((s) => [s.address, s.action]).sort()).toEqual([
    ['gateway.team[search]', 'delete'],
    ['gateway_token.team[search]/ci', 'revoke'],
    ['otel_export.team[search]', 'delete'],
  ]);

  const run = await w.cli(['apply', w.dir, '--auto-approve']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const live = await teamsLive();
  expect(live.gateways).toEqual(['gw-payments', 'gw-support']);
  expect(live.tokens).toEqual(['gw-payments/ci', 'gw-support/ci']);
  expect(live.projects).toContain('core');
  expect((await w.run(['plan', w.dir, '--detailed-exitcode'])).code).toBe(0);
});
