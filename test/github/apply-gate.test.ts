// The gate of `/cplane apply` on what GitHub answers, table by table: the comment it accepts, whose reviews count
// (each reviewer's latest, at the head commit, the author's never), and answers it refuses to half-read.
import { describe, expect, it } from 'vitest';
import { checkApplyGate, parseApplyComment, type GithubCall } from '../../src/github/index.js';

const head = 'c'.repeat(40);
const comment = (body: string, login: unknown = 'alice', extra: object = {}) => ({
  action: 'created',
  issue: { number: 4, pull_request: { url: 'x' } },
  comment: { body, user: { login } },
  ...extra,
});

describe('parseApplyComment', () => {
  it('takes `/cplane apply` and the deployments it names, on its first line', () => {
    expect(parseApplyComment(comment('/cplane apply'))).toEqual({
      ok: true,
      comment: { pullRequest: 4, commenter: 'alice', deployments: [] },
    });
    expect(parseApplyComment(comment('  /cplane apply dev prod-eu \nthanks'))).toMatchObject({
      comment: { deployments: ['dev', 'prod-eu'] },
    });
  });

  it('refuses another command, a name that is not a deployment, a forged login, an edit, and an issue that is no pull request', () => {
    expect(parseApplyComment(comment('/cplane plan'))).toMatchObject({ ok: false, pullRequest: 4 });
    expect(parseApplyComment(comment('/cplane apply $(rm -rf /)'))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('deployment name'),
    });
    expect(parseApplyComment(comment('/cplane apply', 'al\nice'))).toMatchObject({ ok: false, reason: 'the comment has no valid author' });
    expect(parseApplyComment(comment('/cplane apply', 'alice', { action: 'edited' }))).toMatchObject({ ok: false });
    expect(parseApplyComment({ issue: { number: 4 }, comment: { body: '/cplane apply', user: { login: 'a' } } })).toMatchObject({
      ok: false,
      reason: 'the event is not a comment on a pull request',
    });
  });
});

/** GitHub as a table of answers by path (the query left out); a path not in it answers 404. */
function github(answers: Record<string, unknown>): GithubCall {
  return async (_method, path) => {
    const answer = answers[path.split('?')[0]!];
    if (answer === undefined) throw new Error(`GET ${path} answered 404`);
    return typeof answer === 'function' ? (answer as (p: string) => unknown)(path) : answer;
  };
}

const holds = (reviews: unknown, checkRuns: unknown = { check_runs: [] }) =>
  github({
    '/collaborators/alice/permission': { permission: 'write' },
    '/pulls/4': { state: 'open', head: { sha: head }, user: { login: 'carol' } },
    '/pulls/4/reviews': (path: string) => (path.includes('page=1') ? reviews : []),
    [`/commits/${head}/check-runs`]: checkRuns,
    [`/commits/${head}/status`]: { state: 'pending', total_count: 0 },
  });
const gate = (call: GithubCall, approvals = 1) =>
  checkApplyGate({
    call,
    comment: { pullRequest: 4, commenter: 'alice', deployments: [] },
    plans: [{ name: 'p', pullRequest: 4, commit: head }],
    approvals,
  });

describe('checkApplyGate', () => {
  it("counts each reviewer's latest review of the head commit: a later change request undoes an approval, a comment does not", async () => {
    const reviews = [
      { user: { login: 'bob' }, state: 'APPROVED', commit_id: head },
      { user: { login: 'bob' }, state: 'CHANGES_REQUESTED', commit_id: head },
      { user: { login: 'erin' }, state: 'APPROVED', commit_id: head },
      { user: { login: 'erin' }, state: 'COMMENTED', commit_id: head },
      { user: { login: 'carol' }, state: 'APPROVED', commit_id: head },
      { user: { login: '<b>x</b>' }, state: 'APPROVED', commit_id: head },
    ];
    expect(await gate(holds(reviews))).toMatchObject({ ok: true, approval: { actor: 'alice', approvers: ['erin'], commit: head } });
    expect(await gate(holds(reviews), 2)).toMatchObject({ ok: false, reason: expect.stringContaining('has 1 (erin)') });
  });

  it('refuses rather than half-read: more than 500 reviews', async () => {
    const page = Array.from({ length: 100 }, () => ({ user: { login: 'bob' }, state: 'APPROVED', commit_id: head }));
    const call = github({
      '/collaborators/alice/permission': { permission: 'admin' },
      '/pulls/4': { state: 'open', head: { sha: head }, user: { login: 'carol' } },
      '/pulls/4/reviews': page,
    });
    expect(await gate(call)).toEqual({ ok: false, reason: 'it has more than 500 reviews' });
  });

  it('refuses checks still running, and a plan of another pull request', async () => {
    const running = holds([{ user: { login: 'bob' }, state: 'APPROVED', commit_id: head }], {
      check_runs: [{ name: 'lint', status: 'queued', conclusion: null }],
    });
    expect(await gate(running)).toMatchObject({ ok: false, reason: expect.stringContaining('1 check(s) have not finished: lint') });
    const other = await checkApplyGate({
      call: holds([]),
      comment: { pullRequest: 4, commenter: 'alice', deployments: [] },
      plans: [{ name: 'p.plan.json', pullRequest: 5, commit: head }],
      approvals: 1,
    });
    expect(other).toEqual({ ok: false, reason: 'the plan p.plan.json was not made for this pull request (it says #5)' });
  });
});
