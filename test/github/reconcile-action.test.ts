// The scheduled reconcile job, as action.yml runs it on a fake runner: `cplane reconcile --github`, then the issue
// step against a stand-in for GitHub's issues API over real HTTP. A change of the configuration that reconcile may
// not apply opens one issue of its own (label cplane-reconcile, never the drift issue); once it is applied by a
// person, the next run closes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { driftMarkerOf } from '../../src/github/drift-issue.js';
import { runCli } from '../e2e/helpers.js';
import { fakeRunner, issuesApi, type IssuesApi, type Runner } from './fake-github.js';

const account = fixtures.accounts[1]!;
const repository = 'acme/infra';
const inputs = { command: 'reconcile', 'working-directory': '.', args: 'infra', comment: 'true' };
const key = `infra:${account.id}@default`;

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let api: IssuesApi;
let runner: Runner;
let env: NodeJS.ProcessEnv;

const config = (description: string) =>
  writeFileSync(
    join(runner.workspace, 'infra', 'main.yaml'),
    `version: 1
account: ${account.id}
projects:
  shop: { description: ${description} }
`,
  );
const reconcileJob = async () => ({ run: await runner.step('cplane', inputs, env), issue: await runner.step('drift-issue', inputs, env) });

beforeAll(async () => {
  emulator = await startEmulator();
  api = await issuesApi(repository);
  runner = fakeRunner();
  mkdirSync(join(runner.workspace, 'infra'));
  config('first');
  env = {
    PATH: process.env.PATH,
    HOME: runner.workspace,
    NO_COLOR: '1',
    CI: '1',
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: account.id,
    CPLANE_STATE_KEY: Buffer.alloc(32, 6).toString('base64'),
    GITHUB_API_URL: api.url,
    GITHUB_REPOSITORY: repository,
    GITHUB_EVENT_NAME: 'schedule',
  };
  expect((await runCli(['apply', 'infra', '--auto-approve'], env, runner.workspace)).code).toBe(0);
});
afterAll(async () => {
  runner.close();
  await api.close();
  await emulator.close();
});

it('nothing waits: the step succeeds and no issue is opened', async () => {
  const { run, issue } = await reconcileJob();
  expect(run.code).toBe(0);
  expect(run.outputs).toMatchObject({ has_withheld: 'false', withheld_count: '0', issue_key: key, issue_topic: 'reconcile' });
  expect(issue.stdout).toBe(`No step waiting for a person for ${key}, and no open reconcile issue.\n`);
  expect(api.issues).toEqual([]);
});

it('a change of the configuration waits for a person: the step succeeds (exit 2 is its report) and one reconcile issue is opened', async () => {
  config('second');
  const { run, issue } = await reconcileJob();
  expect(run.code).toBe(0);
  expect(run.outputs).toMatchObject({ has_withheld: 'true', withheld_count: '1' });
  expect(runner.summary()).toContain('Waiting for a person');
  expect(issue.stdout).toBe(`Reconcile issue #1 for ${key}: opened.\n`);
  const opened = api.issues[0]!;
  expect(opened).toMatchObject({ title: `cplane: changes waiting for a person in ${key}`, state: 'open', labels: ['cplane-reconcile'] });
  expect(opened.body.startsWith(`${driftMarkerOf(key, 'reconcile')}\n#### cplane reconcile for account`)).toBe(true);
  expect(opened.body).toContain('[change] ~ project.shop will be updated in place');
  // Its own marker: never the drift issue's.
  expect(opened.body).not.toContain(driftMarkerOf(key));
});

it('once a person applies the change, the next run closes the issue', async () => {
  expect((await runCli(['apply', 'infra', '--auto-approve'], env, runner.workspace)).code).toBe(0);
  const { issue } = await reconcileJob();
  expect(issue.stdout).toBe(`Reconcile issue #1 for ${key}: closed.\n`);
  expect(api.issues[0]).toMatchObject({ state: 'closed' });
  expect(api.issues[0]!.comments).toEqual([
    `${driftMarkerOf(key, 'reconcile')}\nNothing waits for a person after the latest reconcile: closing.`,
  ]);
});
