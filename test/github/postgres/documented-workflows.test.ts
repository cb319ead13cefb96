// The workflows docs/ci.md gives, run as GitHub runs them (test/github/workflow-harness.ts): a real Git repository,
// the action as a release ships it (its bundle built from the sources), the real CLI against the emulator, the state in
// a real PostgreSQL, and stand-ins for GitHub's comments and issues APIs and for `gh`.
//   - cplane deployments (one job for every account): a pull request with a change gets a green plan job, whose plans
//     reach the artifact, and a comment; the push applies them.
//   - cplane fleet: a pull request planned by four shard jobs and one comment; the push applies the saved plans wave by
//     wave, each deployment's job in its GitHub environment with that environment's token.
//   - cplane drift: the scheduled job opens an issue when something changed outside cplane, and closes it once not.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { extraAccount, fixtures } from '../../../src/emulator/fixtures.js';
import { actionCopy } from '../../helpers/action-bundle.js';
import { withDatabase } from '../../helpers/postgres.js';
import { runCli } from '../../e2e/helpers.js';
import { documentedWorkflowBlocks } from '../documented-workflows.js';
import { commentsApi, issuesApi, repoRoot, type CommentsApi, type IssuesApi } from '../fake-github.js';
import { pullRequestApi } from '../fake-pull-request-api.js';
import { parseWorkflowFile, runWorkflow, type JobRun, type RunOptions, type WorkflowRun } from '../workflow-harness.js';

const database = withDatabase();
const repository = 'acme/infra';
const accounts = { dev: extraAccount(1).id, staging: fixtures.accounts[1]!.id, prod: fixtures.accounts[0]!.id };
/** The fleet of docs/ci.md's `cplane fleet`: each deployment chooses its own token by name (CPLANE_TOKEN_<NAME>). */
const fleetDeployments = { staging: accounts.dev, 'prod-eu': accounts.staging, 'prod-us': accounts.prod } as const;
const stateKey = Buffer.alloc(32, 9).toString('base64');

let temp: string;
let repo: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let comments: CommentsApi;
let issues: IssuesApi;
let actionPath: string;
let ghState: { pulls: { number: number; head: string; branch?: string; mergeCommit?: string }[]; runs: object[]; artifacts: string };
let nextRunId = 1000;

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: 'pipe' }).trim();
const commit = (files: Record<string, string>, message: string) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git('add', '-A');
  git('commit', '--quiet', '-m', message);
  return git('rev-parse', 'HEAD');
};
const workflow = (name: string) => {
  const block = documentedWorkflowBlocks(repoRoot).find((b) => b.name === name);
  if (!block?.file) throw new Error(`docs/ci.md has no workflow named ${name} with the file to save it as`);
  return { file: block.file, parsed: parseWorkflowFile(`.github/workflows/${block.file}`, block.text) };
};

/** Three deployments in three waves, each in its own account, on the one CPLANE_TOKEN (`cplane deployments`). */
const fleet = (description: string) => `version: 1
variables:
  env: {}
deployments:
  dev: { account: ${accounts.dev}, variables: { env: dev } }
  staging: { account: ${accounts.staging}, variables: { env: staging }, after: [dev] }
  prod: { account: ${accounts.prod}, variables: { env: prod }, after: [staging] }
projects:
  app:
    name: app-\${var.env}
    description: ${description} (\${var.env})
`;
/** The same fleet as `cplane fleet` runs it: deployments that each choose their own token. */
const tokenFleet = (description: string) => `version: 1
variables:
  env: {}
deployments:
  staging: { account: ${fleetDeployments.staging}, token: staging, variables: { env: staging } }
  prod-eu: { account: ${fleetDeployments['prod-eu']}, token: prod_eu, variables: { env: prod-eu }, after: [staging] }
  prod-us: { account: ${fleetDeployments['prod-us']}, token: prod_us, variables: { env: prod-us }, after: [prod-eu] }
projects:
  app:
    name: app-\${var.env}
    description: ${description} (\${var.env})
`;
const single = (account: string) => `version: 1
account: ${account}
variables:
  env: {}
projects:
  site:
    name: site-\${var.env}
    description: Site (\${var.env})
`;

/** Secrets as a repository and its environments hold them: each environment has its own deployment's token. */
const secrets = () => ({ CPLANE_TOKEN: fixtures.tokens.admin, CPLANE_STATE: database().url, CPLANE_STATE_KEY: stateKey });
const environments = {
  staging: { CPLANE_TOKEN_STAGING: `${fixtures.tokens.admin}` },
  'prod-eu': { CPLANE_TOKEN_PROD_EU: `${fixtures.tokens.admin}` },
  'prod-us': { CPLANE_TOKEN_PROD_US: `${fixtures.tokens.admin}` },
  // A pull request's plan job runs in NAME-plan (open to every branch), holding that deployment's token alone.
  'staging-plan': { CPLANE_TOKEN_STAGING: `${fixtures.tokens.admin}` },
  'prod-eu-plan': { CPLANE_TOKEN_PROD_EU: `${fixtures.tokens.admin}` },
  'prod-us-plan': { CPLANE_TOKEN_PROD_US: `${fixtures.tokens.admin}` },
};

async function run(
  name: string,
  event: { eventName: string; event: RunOptions['event']; sha: string; ref: string; apiUrl: string; secrets?: Record<string, string> },
): Promise<WorkflowRun> {
  const runId = nextRunId++;
  writeFileSync(join(temp, 'gh-state.json'), JSON.stringify(ghState));
  const { file, parsed } = workflow(name);
  const result = await runWorkflow(await parsed, {
    repo,
    repository,
    runId,
    secrets: event.secrets ?? secrets(),
    environments,
    vars: { CPLANE_BASE_URL: emulator.url },
    action: { ref: 'OWNER/cplane@v0', path: actionPath },
    artifacts: ghState.artifacts,
    temp,
    baseEnv: {
      PATH: `${join(temp, 'bin')}:${process.env.PATH}`,
      HOME: temp,
      NO_COLOR: '1',
      FAKE_GH_STATE: join(temp, 'gh-state.json'),
    },
    ...event,
  });
  const head = (event.event.pull_request as { head?: { sha: string; ref: string } } | undefined)?.head;
  ghState.runs.push({
    id: runId,
    workflow: file,
    event: event.eventName,
    headSha: head?.sha ?? event.sha,
    branch: head?.ref,
    conclusion: result.conclusion,
  });
  writeFileSync(join(temp, 'gh-state.json'), JSON.stringify(ghState));
  return result;
}

/** What a failed job said: its failed steps' output, for the assertion message. */
const why = (jobs: JobRun[]) =>
  jobs
    .filter((j) => j.result === 'failure')
    .flatMap((j) => j.steps.filter((s) => s.outcome === 'failure').map((s) => `${j.name} / ${s.name}: ${s.stdout}${s.stderr}`))
    .join('\n');

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-workflows-'));
  repo = join(temp, 'repo');
  mkdirSync(repo);
  mkdirSync(join(temp, 'bin'));
  writeFileSync(
    join(temp, 'bin', 'gh'),
    `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, 'test', 'github', 'fake-gh.mjs')}" "$@"\n`,
  );
  chmodSync(join(temp, 'bin', 'gh'), 0o755);
  ghState = { pulls: [], runs: [], artifacts: join(temp, 'artifacts') };
  git('init', '--quiet', '--initial-branch', 'main');
  git('config', 'user.email', 'ci@example.com');
  git('config', 'user.name', 'CI');
  // checkout fetches the event's commit by its id, as GitHub's servers allow.
  git('config', 'uploadpack.allowAnySHA1InWant', 'true');
  emulator = await startEmulator({ accounts: 1 });
  comments = await commentsApi(repository, 7);
  issues = await issuesApi(repository);
  actionPath = actionCopy(join(temp, 'action'));
}, 300_000);
afterAll(async () => {
  await comments?.close();
  await issues?.close();
  await emulator?.close();
  rmSync(temp, { recursive: true, force: true });
});

// Each test runs whole workflows (a dozen jobs, each starting the CLI several times): minutes on a busy machine.
describe('the documented workflows, run as GitHub runs them', { timeout: 600_000 }, () => {
  let base: string;

  it('cplane fleet: a pull request planned by shards gets a green plan and one comment; the push applies wave by wave, one environment each', async () => {
    base = commit({ 'infra/main.yaml': tokenFleet('First'), 'README.md': 'infra\n' }, 'the fleet');
    git('checkout', '--quiet', '-b', 'change');
    const head = commit({ 'infra/main.yaml': tokenFleet('The app') }, 'describe the app');
    const pullRequest = { number: 7, base: { sha: base, ref: 'main' }, head: { sha: head, ref: 'change' } };
    const pr = await run('cplane fleet', {
      eventName: 'pull_request',
      event: { pull_request: pullRequest, number: 7 },
      sha: head,
      ref: 'refs/pull/7/merge',
      apiUrl: comments.url,
    });
    expect(why(pr.jobs)).toBe('');
    expect(pr.result('plan')).toBe('success');
    // A job per touched deployment, each in its plan environment with that deployment's token alone.
    expect(pr.job('plan').map((j) => [j.environment, j.result])).toEqual([
      ['staging-plan', 'success'],
      ['prod-eu-plan', 'success'],
      ['prod-us-plan', 'success'],
    ]);
    expect(pr.result('comment')).toBe('success');
    expect(pr.job('apply-wave-1')[0]!.result).toBe('skipped');
    expect(comments.comments).toHaveLength(1);
    for (const name of Object.keys(fleetDeployments)) expect(comments.comments[0]!.body).toContain(name);

    // Merged: main gets the pull request's commit, and the push runs the apply waves.
    git('checkout', '--quiet', 'main');
    git('merge', '--quiet', '--no-ff', '-m', 'Merge pull request #7', 'change');
    const merge = git('rev-parse', 'HEAD');
    ghState.pulls.push({ number: 7, head, mergeCommit: merge });
    const push = await run('cplane fleet', {
      eventName: 'push',
      event: { before: base, after: merge, ref: 'refs/heads/main' },
      sha: merge,
      ref: 'refs/heads/main',
      apiUrl: comments.url,
    });
    expect(why(push.jobs)).toBe('');
    expect(push.result('plan')).toBe('skipped');
    const waves = ['apply-wave-1', 'apply-wave-2', 'apply-wave-3'].map((id) => push.job(id));
    expect(waves.map((jobs) => jobs.map((j) => [j.environment, j.result]))).toEqual([
      [['staging', 'success']],
      [['prod-eu', 'success']],
      [['prod-us', 'success']],
    ]);
    // Wave after wave (the order the harness ran them), each with its environment's token and concurrency group.
    expect(push.jobs.map((j) => j.id).filter((id) => id.startsWith('apply'))).toEqual(['apply-wave-1', 'apply-wave-2', 'apply-wave-3']);
    for (const [name, variable, [job]] of [
      ['staging', 'CPLANE_TOKEN_STAGING', waves[0]!],
      ['prod-eu', 'CPLANE_TOKEN_PROD_EU', waves[1]!],
      ['prod-us', 'CPLANE_TOKEN_PROD_US', waves[2]!],
    ] as const) {
      // Its own token, and no other deployment's (a secret its environment lacks reads as empty).
      for (const other of ['CPLANE_TOKEN_STAGING', 'CPLANE_TOKEN_PROD_EU', 'CPLANE_TOKEN_PROD_US'])
        expect(job!.env[other] ?? '').toBe(other === variable ? fixtures.tokens.admin : '');
      expect(job!.concurrency).toMatchObject({ group: `cplane-apply-${name}` });
      expect(job!.steps.at(-1)!.stdout).toMatch(/Apply complete|1 added|added/);
    }
  });

  it('cplane deployments: a pull request with a change gets a green plan (exit 2 is its changes), its plans and a comment; the push applies them', async () => {
    git('checkout', '--quiet', '-b', 'describe-again');
    const before = git('rev-parse', 'main');
    const head = commit({ 'infra/main.yaml': fleet('The application') }, 'describe the application');
    const pullRequest = { number: 7, base: { sha: before, ref: 'main' }, head: { sha: head, ref: 'describe-again' } };
    const pr = await run('cplane deployments', {
      eventName: 'pull_request',
      event: { pull_request: pullRequest, number: 7 },
      sha: head,
      ref: 'refs/pull/7/merge',
      apiUrl: comments.url,
    });
    expect(why(pr.jobs)).toBe('');
    const [plan] = pr.job('plan');
    expect(plan!.result).toBe('success');
    const step = plan!.steps.find((s) => s.id === 'plan')!;
    expect(step.outputs.has_changes).toBe('true');
    expect(step.steps!.find((s) => s.id === 'cplane')!.outputs.has_changes).toBe('true');
    expect(plan!.steps.at(-1)).toMatchObject({ name: 'Run actions/upload-artifact@v4', outcome: 'success' });
    expect(comments.comments.map((c) => c.body).join('')).toContain('The application (prod)');

    git('checkout', '--quiet', 'main');
    git('merge', '--quiet', '--no-ff', '-m', 'Merge pull request #8', 'describe-again');
    const merge = git('rev-parse', 'HEAD');
    ghState.pulls.push({ number: 8, head, mergeCommit: merge });
    const push = await run('cplane deployments', {
      eventName: 'push',
      event: { before, after: merge, ref: 'refs/heads/main' },
      sha: merge,
      ref: 'refs/heads/main',
      apiUrl: comments.url,
    });
    expect(why(push.jobs)).toBe('');
    expect(push.job('apply').map((j) => [j.environment, j.result])).toEqual([['production', 'success']]);
  });

  it('cplane drift: the scheduled job opens an issue when a deployment changed outside cplane, and closes it once it did not', async () => {
    // The single-folder layout of the drift workflow (on main): infra/prod and infra/staging with their variable files.
    const sha = commit(
      {
        'infra/prod/main.yaml': single(accounts.prod),
        'infra/staging/main.yaml': single(accounts.staging),
        'envs/prod.yaml': 'env: prod\n',
        'envs/staging.yaml': 'env: staging\n',
      },
      'the single-folder configurations',
    );
    // Applied first, as the merge's apply job would have.
    // The CLI as a person runs it (a child process: the emulator answers in this one).
    const cli = async (args: string[]) => {
      const result = await runCli(
        args,
        { PATH: process.env.PATH, HOME: temp, NO_COLOR: '1', CPLANE_BASE_URL: emulator.url, ...secrets() },
        repo,
      );
      expect(result.stderr, args.join(' ')).not.toMatch(/^Error/m);
      return result.stdout;
    };
    for (const env of ['prod', 'staging']) await cli(['apply', `infra/${env}`, '--var-file', `envs/${env}.yaml`, '--auto-approve']);
    // The drift job's token only reads (here Ada's, which reads both accounts); it holds no write secret.
    const schedule = () =>
      run('cplane drift', {
        eventName: 'schedule',
        event: { schedule: '17 5 * * *' },
        sha,
        ref: 'refs/heads/main',
        apiUrl: issues.url,
        secrets: { CPLANE_READ_TOKEN: fixtures.tokens.admin, CPLANE_STATE: database().url, CPLANE_STATE_KEY: stateKey },
      });

    const clean = await schedule();
    expect(why(clean.jobs)).toBe('');
    expect(issues.issues).toEqual([]);

    // Someone changes the prod project in the console.
    const edit = async (description: string) =>
      cli([
        'api',
        'updateProject',
        '--account',
        accounts.prod,
        '--param',
        `id=${await findProject(cli)}`,
        '--body',
        JSON.stringify({ name: 'site-prod', description }),
      ]);
    await edit('edited by hand');
    const drifted = await schedule();
    expect(why(drifted.jobs)).toBe('');
    expect(issues.issues.map((i) => [i.title, i.state])).toEqual([[`cplane: drift in infra/prod:${accounts.prod}@default`, 'open']]);
    expect(drifted.job('drift').map((j) => j.steps.at(-1)!.outcome)).toEqual(['success', 'skipped']);

    await edit('Site (prod)');
    const back = await schedule();
    expect(why(back.jobs)).toBe('');
    expect(issues.issues.map((i) => i.state)).toEqual(['closed']);
  });
  it('cplane (one folder, after the drift test made it): the pull request plans and saves prod-plan; the push downloads and applies it', async () => {
    const before = git('rev-parse', 'main');
    git('checkout', '--quiet', '-b', 'add-docs');
    const head = commit(
      { 'infra/prod/main.yaml': `${single(accounts.prod)}  docs:\n    name: docs-\${var.env}\n    description: Docs\n` },
      'the docs project',
    );
    const pullRequest = { number: 7, base: { sha: before, ref: 'main' }, head: { sha: head, ref: 'add-docs' } };
    const pr = await run('cplane', {
      eventName: 'pull_request',
      event: { pull_request: pullRequest, number: 7 },
      sha: head,
      ref: 'refs/pull/7/merge',
      apiUrl: comments.url,
    });
    expect(why(pr.jobs)).toBe('');
    expect(pr.jobs.map((j) => [j.id, j.result])).toEqual([
      ['plan', 'success'],
      ['apply', 'skipped'],
      ['replan', 'skipped'],
    ]);
    expect(pr.job('plan')[0]!.steps.find((s) => s.id === 'plan')!.outputs).toMatchObject({ has_changes: 'true', add: '1' });
    expect(comments.comments.some((c) => c.body.includes('docs-prod'))).toBe(true);

    git('checkout', '--quiet', 'main');
    git('merge', '--quiet', '--no-ff', '-m', 'Merge pull request #9', 'add-docs');
    const merge = git('rev-parse', 'HEAD');
    ghState.pulls.push({ number: 9, head, mergeCommit: merge });
    const push = await run('cplane', {
      eventName: 'push',
      event: { before, after: merge },
      sha: merge,
      ref: 'refs/heads/main',
      apiUrl: comments.url,
    });
    expect(why(push.jobs)).toBe('');
    const [apply] = push.job('apply');
    expect([apply!.environment, apply!.result]).toEqual(['production', 'success']);
    expect(apply!.steps.at(-1)!.outputs).toMatchObject({ add: '1' });
  });

  it('cplane comment apply (after the one-folder test): /cplane apply is refused with a comment until the head commit is approved, then applies the reviewed plan', async () => {
    const before = git('rev-parse', 'main');
    git('checkout', '--quiet', '-b', 'comment-apply');
    const prod = readFileSync(join(repo, 'infra/prod/main.yaml'), 'utf8');
    const head = commit(
      { 'infra/prod/main.yaml': prod.replace('description: Docs\n', 'description: Docs, applied from a comment\n') },
      'the docs',
    );
    git('checkout', '--quiet', 'main');
    const pullRequest = { number: 10, base: { sha: before, ref: 'main' }, head: { sha: head, ref: 'comment-apply' } };
    const planComments = await commentsApi(repository, 10);
    const planned = await run('cplane', {
      eventName: 'pull_request',
      event: { pull_request: pullRequest, number: 10 },
      sha: head,
      ref: 'refs/pull/10/merge',
      apiUrl: planComments.url,
    }).finally(() => planComments.close());
    expect(why(planned.jobs)).toBe('');
    ghState.pulls.push({ number: 10, head, branch: 'comment-apply' });

    const github = await pullRequestApi(repository, 10, head, 'carol');
    try {
      github.permissions = { alice: 'write' };
      github.checkRuns = [{ name: 'plan', status: 'completed', conclusion: 'success' }];
      const comment = () =>
        run('cplane comment apply', {
          eventName: 'issue_comment',
          event: {
            action: 'created',
            issue: { number: 10, pull_request: { url: 'x' } },
            comment: { body: '/cplane apply', user: { login: 'alice' } },
          },
          sha: before,
          ref: 'refs/heads/main',
          apiUrl: github.url,
        });
      const refused = await comment();
      expect(refused.result('apply')).toBe('failure');
      expect(github.comments.map((c) => c.body)).toEqual([
        `**cplane apply refused:** it needs 1 approval(s) of its head commit ${head.slice(0, 12)} by someone other than its author, and has 0.\n\nNothing was applied.`,
      ]);

      github.reviews = [{ user: { login: 'bob' }, state: 'APPROVED', commit_id: head }];
      const applied = await comment();
      expect(why(applied.jobs)).toBe('');
      const [job] = applied.job('apply');
      expect(job!.steps.at(-1)!.outputs).toMatchObject({ change: '1' });
      expect(job!.summary).toMatch(/Applied: PR #10 at `[0-9a-f]{12}`, plan `sha256:[0-9a-f]{64}`, by alice, approved by bob\./);
      expect(github.comments).toHaveLength(1);
    } finally {
      await github.close();
    }
  });
});

async function findProject(cli: (args: string[]) => Promise<string>): Promise<string> {
  const projects = JSON.parse(await cli(['api', 'listProjects', '--account', accounts.prod])) as { project_id: string; name: string }[];
  return projects.find((p) => p.name === 'site-prod')!.project_id;
}
