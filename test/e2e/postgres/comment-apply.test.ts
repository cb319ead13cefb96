// `/cplane apply` commented on a pull request, through the real CLI against the emulator, a state in PostgreSQL and a
// stand-in for GitHub's API: refused (with a comment saying why, and no write) for a commenter who may not push, an
// unapproved pull request, one approved only by its author, a plan of an older commit and failed checks; applied when
// all hold, with the approvers and the plan's digest in `cplane state history` and the step summary.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';
import { pullRequestApi, type PullRequestApi } from '../../github/fake-pull-request-api.js';
import { world, type World } from '../helpers.js';

const database = withDatabase();
const head = 'a'.repeat(40);
const older = 'b'.repeat(40);
let w: World;
let github: PullRequestApi;
let env: NodeJS.ProcessEnv;
let planFile: string;

const writes = () =>
  Object.entries(w.emulator.stats().byOperation)
    .filter(([name]) => /^(create|update|delete)/.test(name))
    .reduce((sum, [, n]) => sum + n, 0);

/** The `issue_comment` event of `body` by `login` on pull request 7. */
function event(login: string, body = '/cplane apply'): string {
  const path = join(w.temp, `event-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    path,
    JSON.stringify({ action: 'created', issue: { number: 7, pull_request: { url: 'x' } }, comment: { body, user: { login } } }),
  );
  return path;
}

const apply = (login: string, extra: string[] = [], body?: string) =>
  w.cli(['apply', planFile, '--from-comment', ...extra], { ...env, GITHUB_EVENT_PATH: event(login, body) });

/** Everything holds: alice may push, bob approved the head commit, its checks passed. */
function allHold(): void {
  github.pr.head.sha = head;
  github.permissions = { alice: 'write', mallory: 'read' };
  github.reviews = [{ user: { login: 'bob' }, state: 'APPROVED', commit_id: head }];
  github.checkRuns = [{ name: 'plan', status: 'completed', conclusion: 'success' }];
  github.status = { state: 'pending', total_count: 0 };
  github.comments = [];
}

beforeAll(async () => {
  w = await world();
  github = await pullRequestApi('acme/infra', 7, head, 'carol');
  const url = new URL(database().url);
  url.searchParams.set('schema', 'comment_apply_e2e');
  env = {
    CPLANE_STATE: url.toString(),
    GITHUB_API_URL: github.url,
    GITHUB_REPOSITORY: 'acme/infra',
    GITHUB_TOKEN: 'gh-test-token',
    GITHUB_ACTOR: 'alice',
  };
  w.config('version: 1\nprojects:\n  core: { description: Core }\n');
  expect((await w.run(['apply', w.dir, '--auto-approve'], env)).code).toBe(0);
  w.config('version: 1\nprojects:\n  core: { description: Core as PR 7 wants }\n');
  planFile = join(w.temp, 'pr-7.plan.json');
  const planned = await w.cli(['plan', w.dir, '--out', planFile, '--pr', '7', '--commit', head], env);
  expect(planned.code, planned.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await github?.close();
  await w?.close();
});

describe('apply from a /cplane apply comment', { timeout: 120_000 }, () => {
  const refusals: [string, () => void, string, RegExp][] = [
    ['a commenter who may not push', () => undefined, 'mallory', /@mallory may not push to this repository/],
    [
      'an unapproved pull request',
      () => (github.reviews = []),
      'alice',
      /needs 1 approval\(s\) of its head commit aaaaaaaaaaaa .* and has 0/,
    ],
    [
      'a pull request approved only by its author',
      () => (github.reviews = [{ user: { login: 'carol' }, state: 'APPROVED', commit_id: head }]),
      'alice',
      /by someone other than its author, and has 0/,
    ],
    [
      'an approval of an earlier commit',
      () => (github.reviews = [{ user: { login: 'bob' }, state: 'APPROVED', commit_id: older }]),
      'alice',
      /and has 0/,
    ],
    [
      'a plan of an older commit (a new commit was pushed)',
      () => (github.pr.head.sha = older),
      'alice',
      /was made for commit aaaaaaaaaaaa, and the head of the pull request is bbbbbbbbbbbb/,
    ],
    [
      'failed checks',
      () => (github.checkRuns = [{ name: 'tests', status: 'completed', conclusion: 'failure' }]),
      'alice',
      /checks of its head commit aaaaaaaaaaaa did not pass: 1 check\(s\) did not pass: tests/,
    ],
    ['a failed commit status', () => (github.status = { state: 'failure', total_count: 1 }), 'alice', /combined commit status is failure/],
  ];
  for (const [what, arrange, login, reason] of refusals) {
    it(`is refused for ${what}, with a comment that says why, and writes nothing`, async () => {
      allHold();
      arrange();
      const before = writes();
      const result = await apply(login);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(reason);
      expect(result.stderr).toContain('Nothing was applied');
      expect(github.comments).toHaveLength(1);
      expect(github.comments[0]!.body).toMatch(/^\*\*cplane apply refused:\*\* /);
      // Markdown escapes and the mention breaker (a zero-width space after `@`) taken out, the reason reads the same.
      expect(github.comments[0]!.body.replace(/\\|\u200b/g, '')).toMatch(reason);
      expect(writes()).toBe(before);
    });
  }

  it('escapes what GitHub says in its refusal: a check named with Markdown and HTML cannot add either', async () => {
    allHold();
    github.checkRuns = [{ name: '<img src=x onerror=alert(1)> [click](http://evil.example)', status: 'in_progress', conclusion: null }];
    const result = await apply('alice');
    expect(result.code).toBe(1);
    expect(github.comments[0]!.body).toContain('\\<img');
    expect(github.comments[0]!.body).not.toMatch(/(?<!\\)<img|(?<!\\)\]\(http/);
  });

  it('refuses a comment that is not `/cplane apply`, and more approvals than the pull request has', async () => {
    allHold();
    expect((await apply('alice', [], '/cplane destroy')).stderr).toContain('does not start with `/cplane apply`');
    const two = await apply('alice', ['--approvals', '2']);
    expect(two.stderr).toMatch(/needs 2 approval\(s\) .* and has 1 \(bob\)/);
    expect((await apply('alice', ['--approvals', 'many'])).stderr).toContain('--approvals must be a whole number from 0 to 20');
  });

  it('applies when all hold, and records the commenter, the approvers, the pull request, the commit and the digest', async () => {
    allHold();
    github.reviews.push({ user: { login: 'dave' }, state: 'COMMENTED', commit_id: head });
    github.reviews.push({ user: { login: 'erin' }, state: 'APPROVED', commit_id: head });
    const summary = join(w.temp, 'summary.md');
    writeFileSync(summary, '');
    const before = writes();
    const result = await w.cli(['apply', planFile, '--from-comment', '--github'], {
      ...env,
      GITHUB_EVENT_PATH: event('alice'),
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_OUTPUT: join(w.temp, 'output'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(writes()).toBe(before + 1);
    expect(github.comments).toEqual([]);
    const digest = `sha256:${createHash('sha256').update(readFileSync(planFile)).digest('hex')}`;
    const allowed = `PR #7 at aaaaaaaaaaaa, plan ${digest}, by alice, approved by bob, erin`;
    const history = await w.cli(['state', 'history', w.dir, '--json'], env);
    const { versions } = JSON.parse(history.stdout) as { versions: { command: string; allowance?: object }[] };
    expect(versions[0]!.command).toBe(`cplane apply (${allowed})`);
    expect(versions[0]!.allowance).toEqual({ digest, pullRequest: 7, commit: head, actor: 'alice', approvers: ['bob', 'erin'] });
    expect((await w.cli(['state', 'history', w.dir], env)).stdout).toContain(allowed);
    expect(readFileSync(summary, 'utf8')).toContain('by alice, approved by bob, erin.');
  });
});
