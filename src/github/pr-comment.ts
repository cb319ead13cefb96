/**
 * Creates or updates the pull-request comments that hold a plan, through the
 * GitHub REST API: the comments of the pull request are listed, the ones with
 * this configuration's marker are updated in place, missing parts are added,
 * and parts no longer needed (the plan got shorter) are deleted.
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
}

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

  const ours = new Map<number, IssueComment>();
  for (let page = 1; ; page++) {
    const comments = (await call('GET', `${base}/issues/${request.pullRequest}/comments?per_page=100&page=${page}`)) as IssueComment[];
    for (const comment of comments) {
      const marker = parseMarker(comment.body ?? '');
      if (marker?.key === request.key && !ours.has(marker.part)) ours.set(marker.part, comment);
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
