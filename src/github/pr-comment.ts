/**
 * Creates or updates the pull-request comments that hold a plan, through the
 * GitHub REST API: the comments of the pull request are listed, the ones with
 * this configuration's marker are updated in place, missing parts are added,
 * and parts no longer needed (the plan got shorter) are deleted.
 *
 * Only comments written by the token's own user (`GET /user`) or by the
 * GitHub Actions bot (the author of comments made with the workflow's
 * GITHUB_TOKEN, which cannot read `/user`) are ours: anyone can paste the
 * hidden marker into a comment, and cplane never edits or deletes those.
 */
import { parseMarker, splitComment } from './comment-parts.js';

export interface CommentRequest {
  /** `https://api.github.com` or GHES's API address ($GITHUB_API_URL). */
  apiUrl: string;
  /** `owner/name` ($GITHUB_REPOSITORY). */
  repository: string;
  pullRequest: number;
  token: string;
  /** Configuration and workspace, e.g. `infra/prod@default`. */
  key: string;
  markdown: string;
}

export interface CommentResult {
  created: number;
  updated: number;
  deleted: number;
}

interface IssueComment {
  id: number;
  body?: string;
  user?: { login?: string } | null;
}

/** The author of comments made with a workflow's GITHUB_TOKEN. */
export const ACTIONS_BOT = 'github-actions[bot]';

export async function upsertPlanComments(request: CommentRequest): Promise<CommentResult> {
  const base = `${request.apiUrl.replace(/\/+$/, '')}/repos/${request.repository}`;
  const call = async (method: string, url: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${request.token}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'error',
    });
    if (!response.ok) throw new Error(`${method} ${url.slice(request.apiUrl.length)} answered ${response.status} ${(await response.text()).slice(0, 300)}`);
    return response.status === 204 ? undefined : response.json();
  };

  const authors = new Set([ACTIONS_BOT]);
  // A GITHUB_TOKEN is refused here (403): then only the Actions bot writes our comments.
  const me = await call('GET', `${request.apiUrl.replace(/\/+$/, '')}/user`).catch(() => undefined);
  const login = (me as { login?: unknown } | undefined)?.login;
  if (typeof login === 'string') authors.add(login);

  const ours = new Map<number, IssueComment>();
  for (let page = 1; ; page++) {
    const comments = (await call('GET', `${base}/issues/${request.pullRequest}/comments?per_page=100&page=${page}`)) as IssueComment[];
    for (const comment of comments) {
      const marker = parseMarker(comment.body ?? '');
      const byUs = authors.has(comment.user?.login ?? '');
      if (byUs && marker?.key === request.key && !ours.has(marker.part)) ours.set(marker.part, comment);
    }
    if (comments.length < 100) break;
  }

  const result: CommentResult = { created: 0, updated: 0, deleted: 0 };
  const bodies = splitComment(request.markdown, request.key);
  for (const [part, body] of bodies.entries()) {
    const existing = ours.get(part);
    if (!existing) {
      await call('POST', `${base}/issues/${request.pullRequest}/comments`, { body });
      result.created++;
    } else if (existing.body !== body) {
      await call('PATCH', `${base}/issues/comments/${existing.id}`, { body });
      result.updated++;
    }
  }
  for (const [part, comment] of ours) {
    if (part < bodies.length) continue;
    await call('DELETE', `${base}/issues/comments/${comment.id}`);
    result.deleted++;
  }
  return result;
}
