/**
 * The issue a scheduled drift check keeps, one per configuration and
 * workspace: opened when `cplane drift` finds drift, updated while it
 * lasts, closed (with a comment) once a check finds none. The issue is found
 * by the same kind of hidden marker as the plan comment (the key encoded the
 * same way) among the open issues that carry the `cplane-drift` label and
 * that cplane's token wrote (the same rule as for plan comments); its
 * body is the drift report's Markdown (already escaped by render/), cut to
 * what GitHub accepts.
 */
import { htmlComment } from '../text/escape-for.js';
import { cutMarkdown } from './actions.js';
import { COMMENT_LIMIT } from './comment-parts.js';
import { githubRepository, ourAuthors } from './rest.js';

export const DRIFT_LABEL = 'cplane-drift';

/**
 * The issues kept this way, one table: a drift check's (`cplane drift`) and a reconcile's (`cplane reconcile`, the
 * steps it leaves for a person). Each has its own label and marker, so neither ever takes the other's issue.
 */
export const issueTopics = {
  drift: { label: DRIFT_LABEL, title: 'drift in', closing: 'No drift found by the latest check' },
  reconcile: {
    label: 'cplane-reconcile',
    title: 'changes waiting for a person in',
    closing: 'Nothing waits for a person after the latest reconcile',
  },
} as const;
export type IssueTopic = keyof typeof issueTopics;

export interface DriftIssueRequest {
  apiUrl: string;
  repository: string;
  token: string;
  /** Configuration and workspace, e.g. `infra/prod@default`. */
  key: string;
  /** Which issue (default `drift`). */
  topic?: IssueTopic;
  /** Whether the issue should be open: drift was found, or steps wait for a person. */
  hasDrift: boolean;
  /** The drift report (`cplane drift --markdown`). */
  markdown: string;
  /** Where the full report is when it is cut, e.g. the workflow run's address. */
  runUrl?: string;
}

export type DriftIssueResult = { action: 'opened' | 'updated' | 'unchanged' | 'closed'; number: number } | { action: 'none' };

interface Issue {
  number: number;
  body?: string | null;
  pull_request?: unknown;
  user?: { login?: string } | null;
}

export function driftMarkerOf(key: string, topic: IssueTopic = 'drift'): string {
  return `<!-- cplane-${topic} key="${htmlComment({ name: key })}" -->`;
}

/** The issue body for a report: the marker, then the report cut to GitHub's limit. */
export function driftIssueBody(key: string, markdown: string, runUrl?: string, topic: IssueTopic = 'drift'): string {
  const marker = driftMarkerOf(key, topic);
  const note = `> **Cut here:** the report is longer than an issue holds; the full report is in the step summary of ${runUrl ? `[the workflow run](${encodeURI(runUrl)})` : 'the workflow run'}.`;
  return `${marker}\n${cutMarkdown(markdown, COMMENT_LIMIT - marker.length - 1, note)}`;
}

/** The issue title: plain text, so only control characters need to go. */
export const driftIssueTitle = (key: string, topic: IssueTopic = 'drift') =>
  `cplane: ${issueTopics[topic].title} ${key.replace(/\p{Cc}/gu, '')}`.slice(0, 200);

export async function syncDriftIssue(request: DriftIssueRequest): Promise<DriftIssueResult> {
  const call = githubRepository(request.apiUrl, request.repository, request.token);
  // As with the plan comment: only an issue cplane's token wrote is ours, whoever else copies the marker.
  const authors = await ourAuthors(request.apiUrl, request.token);
  const topic = request.topic ?? 'drift';
  const { label, closing } = issueTopics[topic];
  const marker = driftMarkerOf(request.key, topic);
  let ours: Issue | undefined;
  for (let page = 1; !ours; page++) {
    const issues = (await call('GET', `/issues?state=open&labels=${label}&per_page=100&page=${page}`)) as Issue[];
    ours = issues.find((issue) => !issue.pull_request && authors.has(issue.user?.login ?? '') && (issue.body ?? '').startsWith(marker));
    if (issues.length < 100) break;
  }

  if (!request.hasDrift) {
    if (!ours) return { action: 'none' };
    await call('POST', `/issues/${ours.number}/comments`, {
      body: `${marker}\n${closing}${request.runUrl ? ` ([run](${encodeURI(request.runUrl)}))` : ''}: closing.`,
    });
    await call('PATCH', `/issues/${ours.number}`, { state: 'closed', state_reason: 'completed' });
    return { action: 'closed', number: ours.number };
  }
  const body = driftIssueBody(request.key, request.markdown, request.runUrl, topic);
  if (!ours) {
    const created = (await call('POST', '/issues', { title: driftIssueTitle(request.key, topic), body, labels: [label] })) as Issue;
    return { action: 'opened', number: created.number };
  }
  if (ours.body === body) return { action: 'unchanged', number: ours.number };
  await call('PATCH', `/issues/${ours.number}`, { body });
  return { action: 'updated', number: ours.number };
}
