// The scheduled drift job, as action.yml runs it on a fake runner: `cplane drift --github` with no write secret in
// the environment, then the drift-issue step against a stand-in for GitHub's issues API over real HTTP. A gateway
// changed behind cplane's back (with `cplane api`) opens one issue; a further change updates it; setting it back
// closes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { runCli, shopGateway } from '../e2e/helpers.js';
import { driftMarkerOf } from '../../src/github/drift-issue.js';
import { fakeRunner, issuesApi, type IssuesApi, type Runner } from './fake-github.js';

const account = fixtures.accounts[1]!;
const repository = 'acme/infra';
const inputs = { command: 'drift', 'working-directory': '.', args: 'infra', comment: 'true' };

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let api: IssuesApi;
let runner: Runner;
/** What the scheduled job has: the API token and the state key, but no write secret (OPENAI_API_KEY, OTEL_TEAM). */
let env: NodeJS.ProcessEnv;
let gatewayId: string;

const cplane = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { ...env, ...extra }, runner.workspace);
const setRequestsPerMinute = async (n: number) =>
  expect(
    (await cplane(['api', 'updateGatewaySettings', '--param', `id=${gatewayId}`, '--body', JSON.stringify({ requestsPerMinute: n })])).code,
  ).toBe(0);
const driftJob = async () => {
  const check = await runner.step('cplane', inputs, env);
  const issue = await runner.step('drift-issue', inputs, env);
  return { check, issue };
};

beforeAll(async () => {
  emulator = await startEmulator();
  api = await issuesApi(repository);
  runner = fakeRunner();
  mkdirSync(join(runner.workspace, 'infra'));
  writeFileSync(
    join(runner.workspace, 'infra', 'main.yaml'),
    `version: 1
account: ${account.id}
${shopGateway}    settings: { requestsPerMinute: 600 }
    otelExport:
      endpoint: https://otel.example.com/v1
      headers: { X-Team: { env: OTEL_TEAM } }
`,
  );
  env = {
    PATH: process.env.PATH,
    HOME: runner.workspace,
    NO_COLOR: '1',
    CI: '1',
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: account.id,
    CPLANE_STATE_KEY: Buffer.alloc(32, 5).toString('base64'),
    GITHUB_API_URL: api.url,
    GITHUB_REPOSITORY: repository,
    GITHUB_EVENT_NAME: 'schedule',
  };
  // Applied once by someone who holds the secrets.
  const applied = await cplane(['apply', 'infra', '--auto-approve'], {
    OPENAI_API_KEY: 'sk-drift-openai-secret',
    OTEL_TEAM: 'team-secret-value',
  });
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  const state = await cplane(['state', 'show', 'gateway.main', 'infra']);
  gatewayId = /[0-9a-f]{8}-[0-9a-f-]{27}/.exec(state.stdout)![0];
});
afterAll(async () => {
  runner.close();
  await api.close();
  await emulator.close();
});

it('no drift: the step succeeds, says so, and no issue is opened', async () => {
  const { check, issue } = await driftJob();
  expect(check.code).toBe(0);
  expect(check.stdout).toContain('No drift: every managed object matches what cplane last applied.');
  expect(check.outputs).toMatchObject({ has_drift: 'false', drift_count: '0', issue_key: `infra:${account.id}@default` });
  expect(issue.stdout).toBe(`No drift for infra:${account.id}@default, and no open drift issue.\n`);
  expect(api.issues).toEqual([]);
});

it('drift found without any write secret: one issue is opened, naming the change and the values not checked', async () => {
  await setRequestsPerMinute(5);
  const { check, issue } = await driftJob();
  // `cplane drift` exits 2 on drift; the action's step reports it as a result, not a failure.
  expect(check.code).toBe(0);
  expect(check.stdout).toContain('~ settings.requestsPerMinute = 600 -> 5');
  expect(check.stdout).toContain('otel_export.main headers.X-Team: not checked (OTEL_TEAM not set)');
  expect(check.outputs).toMatchObject({ has_drift: 'true', drift_count: '1' });
  expect(runner.summary()).toContain('**Drift: 1 object changed outside cplane since the last apply.**');
  expect(issue.stdout).toBe(`Drift issue #1 for infra:${account.id}@default: opened.\n`);
  expect(api.issues).toHaveLength(1);
  const opened = api.issues[0]!;
  expect(opened).toMatchObject({ title: `cplane: drift in infra:${account.id}@default`, state: 'open', labels: ['cplane-drift'] });
  expect(opened.body.startsWith(`${driftMarkerOf(`infra:${account.id}@default`)}\n#### cplane drift for account`)).toBe(true);
  expect(opened.body).toContain('!     settings.requestsPerMinute = 600 -> 5');
  expect(opened.body).toContain('> - otel\\_export.main headers.X-Team: not checked (OTEL\\_TEAM not set)');
  expect(opened.body).toContain('> - credential.openai secret: not checked (OPENAI\\_API\\_KEY not set)');
  expect(opened.body).not.toContain('team-secret-value');
});

it('more drift: the same issue is updated; text from the account cannot break out of its code block', async () => {
  await setRequestsPerMinute(7);
  // A name set outside cplane that tries to close the code fence and add HTML to the issue.
  expect(
    (
      await cplane([
        'api',
        'updateGateway',
        '--param',
        `id=${gatewayId}`,
        '--body',
        JSON.stringify({ name: '```\n<img src=x onerror=alert(1)>' }),
      ])
    ).code,
  ).toBe(0);
  const { issue } = await driftJob();
  expect(issue.stdout).toBe(`Drift issue #1 for infra:${account.id}@default: updated.\n`);
  expect(api.issues).toHaveLength(1);
  const body = api.issues[0]!.body;
  expect(body).toContain('settings.requestsPerMinute = 600 -> 7');
  // One diff block: opened once and closed once; the name's fence is defused.
  expect(body).toContain('<img src=x onerror=alert(1)>');
  expect(body.match(/^```/gm)).toHaveLength(2);
  expect(body).not.toMatch(/^<img/m);
});

it('drift gone: the issue is closed with a comment', async () => {
  await setRequestsPerMinute(600);
  expect((await cplane(['api', 'updateGateway', '--param', `id=${gatewayId}`, '--body', JSON.stringify({ name: 'main' })])).code).toBe(0);
  const { check, issue } = await driftJob();
  expect(check.outputs.has_drift).toBe('false');
  expect(issue.stdout).toBe(`Drift issue #1 for infra:${account.id}@default: closed.\n`);
  expect(api.issues[0]).toMatchObject({ state: 'closed', state_reason: 'completed' });
  expect(api.issues[0]!.comments).toEqual([
    `${driftMarkerOf(`infra:${account.id}@default`)}\nNo drift found by the latest check: closing.`,
  ]);
  // Someone else's issue that copies the marker and the label is not cplane's: a later check touches nothing.
  api.issues.push({
    number: 2,
    title: 'look',
    body: `${driftMarkerOf(`infra:${account.id}@default`)}\nforged`,
    state: 'open',
    labels: ['cplane-drift'],
    comments: [],
    user: { login: 'mallory' },
  });
  const again = await driftJob();
  expect(again.issue.stdout).toBe(`No drift for infra:${account.id}@default, and no open drift issue.\n`);
  expect(api.requests.filter((r) => r.startsWith('PATCH'))).toHaveLength(2);
  expect(api.issues[1]).toMatchObject({ state: 'open', body: `${driftMarkerOf(`infra:${account.id}@default`)}\nforged`, comments: [] });
});
