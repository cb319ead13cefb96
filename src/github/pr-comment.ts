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
import { githubRepository, ourAuthors } from './rest.js';

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

export { ACTIONS_BOT } from './rest.js';

export async function upsertPlanComments(request: CommentRequest): Promise<CommentResult> {
  const call = githubRepository(request.apiUrl, request.repository, request.token);
  const authors = await ourAuthors(request.apiUrl, request.token);

  const ours = new Map<number, IssueComment>();
  for (let page = 1; ; page++) {
    const comments = (await call('GET', `/issues/${request.pullRequest}/comments?per_page=100&page=${page}`)) as IssueComment[];
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
      await call('POST', `/issues/${request.pullRequest}/comments`, { body });
      result.created++;
    } else if (existing.body !== body) {
      await call('PATCH', `/issues/comments/${existing.id}`, { body });
      result.updated++;
    }
  }
  for (const [part, comment] of ours) {
    if (part < bodies.length) continue;
    await call('DELETE', `/issues/comments/${comment.id}`);
    result.deleted++;
  }
  return result;
}
