// A drift check needs no write secret: after an apply made with the secrets, a gateway is changed behind cplane's
// back with `cplane api`; with no secret variable set, `cplane drift` reports the change, exits 2, and names the
// write-only values it did not check. `plan --refresh-only` says the same; an ordinary plan still needs the secrets.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { shopGateway, world, type World } from './helpers.js';

let w: World;
let gatewayId: string;
/** The scheduled job's environment: the API token and the state key, no OPENAI_API_KEY, no OTEL_TEAM. */
const noSecrets = { OPENAI_API_KEY: '', OTEL_TEAM: '' };

// Each test starts from its own world with the configuration applied; the arrangement runs the CLI's entry
// in-process, the commands under test run the real CLI.
beforeEach(async () => {
  w = await world();
  w.config(`version: 1
${shopGateway}    settings: { requestsPerMinute: 600 }
    otelExport:
      endpoint: https://otel.example.com/v1
      headers: { X-Team: { env: OTEL_TEAM } }
`);
  const applied = await w.run(['apply', w.dir, '--auto-approve'], { OTEL_TEAM: 'team-header-secret' });
  expect(applied.code).toBe(0);
  gatewayId = /[0-9a-f]{8}-[0-9a-f-]{27}/.exec((await w.run(['state', 'show', 'gateway.main', w.dir])).stdout)![0];
});
afterEach(() => w.close());

/** The gateway's rate changed behind cplane's back with `cplane api` (in-process: the arrangement). */
async function changedBehind(): Promise<void> {
  const changed = await w.run(['api', 'updateGatewaySettings', '--param', `id=${gatewayId}`, '--body', '{"requestsPerMinute": 5}']);
  expect(changed.code).toBe(0);
}

it('no drift: exit 0, and the values it could not check are named', async () => {
  const run = await w.cli(['drift', w.dir], noSecrets);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('No drift: every managed object matches what cplane last applied.');
  expect(run.stdout).toContain('! credential.openai secret: not checked (OPENAI_API_KEY not set)');
  expect(run.stdout).toContain('! otel_export.main headers.X-Team: not checked (OTEL_TEAM not set)');
});

it("a gateway changed behind cplane's back: drift reported, exit 2, no secret read", async () => {
  await changedBehind();
  const run = await w.cli(['drift', w.dir], noSecrets);
  expect(run.code).toBe(2);
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('  ~ gateway.main was changed outside cplane\n      ~ settings.requestsPerMinute = 600 -> 5');
  expect(run.stdout).toContain('! otel_export.main headers.X-Team: not checked (OTEL_TEAM not set)');
  expect(run.stdout).toContain('Drift: 1 object changed outside cplane since the last apply.');

  const json = JSON.parse((await w.cli(['drift', w.dir, '--json'], noSecrets)).stdout) as {
    hasDrift: boolean;
    drift: { address: string }[];
    notChecked: unknown[];
  };
  expect(json.hasDrift).toBe(true);
  expect(json.drift.map((d) => d.address)).toEqual(['gateway.main']);
  expect(json.notChecked).toEqual([
    { address: 'credential.openai', field: 'secret', reason: 'OPENAI_API_KEY not set' },
    { address: 'otel_export.main', field: 'headers.X-Team', reason: 'OTEL_TEAM not set' },
  ]);
});

it('plan --refresh-only is the same check: it runs without the secrets and says what it did not check', async () => {
  await changedBehind();
  const run = await w.cli(['plan', w.dir, '--refresh-only', '--detailed-exitcode'], noSecrets);
  expect(run.code).toBe(2);
  expect(run.stdout).toContain('~ settings.requestsPerMinute = 600 -> 5');
  expect(run.stdout).toContain('! otel_export.main headers.X-Team: not checked (OTEL_TEAM not set)');
  // An ordinary plan compares the secrets with what was applied, so it still needs them.
  const plan = await w.cli(['plan', w.dir], noSecrets);
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain('environment variable OTEL_TEAM is not set');
});

it('the drift is recorded in state by applying a saved refresh-only plan, still without any secret', async () => {
  await changedBehind();
  const planFile = `${w.dir}/../refresh.plan.json`;
  const plan = await w.run(['plan', w.dir, '--refresh-only', '--out', planFile], noSecrets);
  expect(plan.code).toBe(0);
  const applied = await w.cli(['apply', planFile], noSecrets);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  const after = await w.cli(['drift', w.dir], noSecrets);
  expect(after.code).toBe(0);
  expect(after.stdout).toContain('No drift: every managed object matches what cplane last applied.');
});
