/**
 * The gate of `/cplane apply` commented on a pull request (`cplane apply PLANFILE --from-comment`), as Atlantis's
 * apply requirements: the commenter may push, the pull request is approved at its head commit by enough people
 * other than its author, the plan is the one made for that head commit, and the head commit's checks passed.
 * Everything GitHub answers is untrusted: only the fields read here are used, each checked for its type.
 */
import type { GithubCall } from './rest.js';

/** What the `issue_comment` event says, reduced to what the gate needs. */
export interface ApplyComment {
  pullRequest: number;
  commenter: string;
  /** The deployments the comment names (`/cplane apply dev prod`); empty: every plan given. */
  deployments: string[];
}

/** Who allowed an apply: recorded in the lock, every state version it saves, and the step summary. */
export interface Approval {
  actor: string;
  approvers: string[];
  pullRequest: number;
  commit: string;
}

export type GateResult = { ok: true; approval: Approval } | { ok: false; reason: string };

/** Logins as GitHub allows them: what is printed or sent back must be one, or it is not used. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}|[A-Za-z0-9-]{0,30}\[bot\])$/;
const DEPLOYMENT = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
const SHA = /^[0-9a-f]{40}$/;
/** Pages of 100 read at most for reviews and check runs: a pull request with more is refused rather than half-read. */
const MAX_PAGES = 5;

type Parsed = { ok: true; comment: ApplyComment } | { ok: false; reason: string; pullRequest?: number };

/** The event payload of an `issue_comment` run: a new comment `/cplane apply [DEPLOYMENT…]` on a pull request. */
export function parseApplyComment(event: unknown): Parsed {
  const e = (event ?? {}) as { action?: unknown; issue?: { number?: unknown; pull_request?: unknown }; comment?: Record<string, unknown> };
  const pullRequest = e.issue?.number;
  if (typeof pullRequest !== 'number' || !Number.isInteger(pullRequest) || pullRequest < 1 || !e.issue?.pull_request)
    return { ok: false, reason: 'the event is not a comment on a pull request' };
  if (e.action !== undefined && e.action !== 'created') return { ok: false, reason: `the comment was ${String(e.action)}, not created` };
  const login = (e.comment?.user as { login?: unknown } | undefined)?.login;
  if (typeof login !== 'string' || !LOGIN.test(login)) return { ok: false, reason: 'the comment has no valid author', pullRequest };
  const body = typeof e.comment?.body === 'string' ? e.comment.body.slice(0, 1000) : '';
  const words = (body.split('\n')[0] ?? '').trim().split(/\s+/);
  if (words[0] !== '/cplane' || words[1] !== 'apply')
    return { ok: false, reason: 'the comment does not start with `/cplane apply`', pullRequest };
  const deployments = words.slice(2);
  const bad = deployments.filter((d) => !DEPLOYMENT.test(d));
  if (bad.length > 0 || deployments.length > 50)
    return { ok: false, reason: 'the comment names something that is not a deployment name (letters, digits, `-`, `_`)', pullRequest };
  return { ok: true, comment: { pullRequest, commenter: login, deployments } };
}

/** May push: GitHub's `permission` is admin or write (maintain reads as write there), or the role says so. */
async function mayPush(call: GithubCall, login: string): Promise<boolean> {
  const answer = (await call('GET', `/collaborators/${encodeURIComponent(login)}/permission`).catch(() => undefined)) as
    { permission?: unknown; role_name?: unknown } | undefined;
  return ['admin', 'maintain', 'write'].some((p) => answer?.permission === p || answer?.role_name === p);
}

async function pages<T>(call: GithubCall, path: string, items: (answer: unknown) => unknown): Promise<T[] | undefined> {
  const all: T[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = items(await call('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`));
    if (!Array.isArray(list)) throw new Error(`GET ${path} did not answer a list`);
    all.push(...(list as T[]));
    if (list.length < 100) return all;
  }
  return undefined;
}

/** The logins whose latest review of the head commit approves it, the author's own left out. */
async function approversAt(call: GithubCall, pr: number, head: string, author: string): Promise<string[] | undefined> {
  const reviews = await pages<{ user?: { login?: unknown }; state?: unknown; commit_id?: unknown }>(call, `/pulls/${pr}/reviews`, (a) => a);
  if (!reviews) return undefined;
  const latest = new Map<string, { state: unknown; commit: unknown }>();
  for (const review of reviews) {
    const login = review.user?.login;
    // A comment review leaves an earlier approval or change request as it was, as on GitHub.
    if (typeof login === 'string' && LOGIN.test(login) && review.state !== 'COMMENTED')
      latest.set(login, { state: review.state, commit: review.commit_id });
  }
  return [...latest]
    .filter(([login, r]) => login !== author && r.state === 'APPROVED' && r.commit === head)
    .map(([login]) => login)
    .sort();
}

/** Why the head commit's checks do not pass (check runs and commit statuses), or undefined when they do. */
async function checksProblem(call: GithubCall, head: string): Promise<string | undefined> {
  const runs = await pages<{ name?: unknown; status?: unknown; conclusion?: unknown }>(
    call,
    `/commits/${head}/check-runs`,
    (a) => (a as { check_runs?: unknown }).check_runs,
  );
  if (!runs) return `it has more than ${MAX_PAGES * 100} check runs`;
  const name = (r: { name?: unknown }) => (typeof r.name === 'string' ? r.name.slice(0, 100) : 'a check');
  const pending = runs.filter((r) => r.status !== 'completed');
  if (pending.length > 0) return `${pending.length} check(s) have not finished: ${pending.slice(0, 5).map(name).join(', ')}`;
  const failed = runs.filter((r) => !['success', 'neutral', 'skipped'].includes(String(r.conclusion)));
  if (failed.length > 0) return `${failed.length} check(s) did not pass: ${failed.slice(0, 5).map(name).join(', ')}`;
  const status = (await call('GET', `/commits/${head}/status`)) as { state?: unknown; total_count?: unknown };
  // GitHub says `pending` for a commit with no status at all.
  if (status.total_count !== 0 && status.state !== 'success') return `its combined commit status is ${String(status.state).slice(0, 20)}`;
  return undefined;
}

/**
 * Checks a comment's request against the pull request and the plans it would apply (each plan's recorded pull
 * request and commit). `approvals` is how many people other than the author must approve the head commit.
 */
export async function checkApplyGate(input: {
  call: GithubCall;
  comment: ApplyComment;
  plans: { name: string; pullRequest?: number; commit?: string }[];
  approvals: number;
}): Promise<GateResult> {
  const { call, comment, approvals } = input;
  const refuse = (reason: string): GateResult => ({ ok: false, reason });
  if (!(await mayPush(call, comment.commenter))) return refuse(`@${comment.commenter} may not push to this repository`);
  const pull = (await call('GET', `/pulls/${comment.pullRequest}`)) as {
    state?: unknown;
    head?: { sha?: unknown };
    user?: { login?: unknown };
  };
  const head = pull.head?.sha;
  const author = pull.user?.login;
  if (typeof head !== 'string' || !SHA.test(head) || typeof author !== 'string')
    return refuse('GitHub did not say its head commit and author');
  if (pull.state !== 'open') return refuse('the pull request is not open');
  for (const plan of input.plans) {
    if (plan.pullRequest !== comment.pullRequest)
      return refuse(
        `the plan ${plan.name} was not made for this pull request (it says ${plan.pullRequest ? `#${plan.pullRequest}` : 'none'})`,
      );
    if (plan.commit !== head)
      return refuse(
        `the plan ${plan.name} was made for commit ${(plan.commit ?? 'none').slice(0, 12)}, and the head of the pull request is ${head.slice(0, 12)}: wait for the plan of the head commit, review it, and comment again`,
      );
  }
  const approvers = await approversAt(call, comment.pullRequest, head, author);
  if (!approvers) return refuse(`it has more than ${MAX_PAGES * 100} reviews`);
  if (approvers.length < approvals)
    return refuse(
      `it needs ${approvals} approval(s) of its head commit ${head.slice(0, 12)} by someone other than its author, and has ${approvers.length}${approvers.length ? ` (${approvers.join(', ')})` : ''}`,
    );
  const checks = await checksProblem(call, head);
  if (checks) return refuse(`the checks of its head commit ${head.slice(0, 12)} did not pass: ${checks}`);
  return { ok: true, approval: { actor: comment.commenter, approvers, pullRequest: comment.pullRequest, commit: head } };
}
