/**
 * Which pull request a plan is for (`--pr N --commit SHA`, or the GitHub Actions event of a `pull_request` run:
 * its number and head commit), and what its comment says of the other open plans (docs/state.md).
 */
import { readFileSync, statSync } from 'node:fs';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';

export interface PullRequestRef {
  number: number;
  commit: string;
}

const COMMIT = /^[0-9a-f]{7,64}$/i;
/** A GitHub event file is small; a larger one is not read. */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** The pull request of the GitHub event (`pull_request`, `pull_request_target`), when the run is one. */
function fromGithubEvent(env: NodeJS.ProcessEnv): PullRequestRef | undefined {
  const path = env.GITHUB_EVENT_PATH;
  if (!path || !/^pull_request/.test(env.GITHUB_EVENT_NAME ?? '')) return undefined;
  try {
    if ((statSync(path).size ?? 0) > MAX_EVENT_BYTES) return undefined;
    const event = JSON.parse(readFileSync(path, 'utf8')) as { pull_request?: { number?: unknown; head?: { sha?: unknown } } };
    const number = event.pull_request?.number;
    const commit = event.pull_request?.head?.sha;
    return Number.isSafeInteger(number) && (number as number) > 0 && typeof commit === 'string' && COMMIT.test(commit)
      ? { number: number as number, commit: commit.toLowerCase() }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The pull request a plan is for: the flags, else the GitHub event; undefined outside a pull request. */
export function pullRequestOf(ctx: CommandContext): PullRequestRef | undefined {
  const pr = ctx.values.pr;
  const commit = ctx.values.commit;
  if (pr === undefined && commit === undefined) return fromGithubEvent(ctx.env);
  const number = Number(pr);
  if (typeof pr !== 'string' || !/^[1-9][0-9]{0,9}$/.test(pr) || !Number.isSafeInteger(number))
    throw new AbortError(`--pr expects a pull request number, got ${JSON.stringify(pr ?? '')}.`, 'Pass --pr N --commit SHA (docs/ci.md).');
  if (typeof commit !== 'string' || !COMMIT.test(commit))
    throw new AbortError(
      `--pr needs --commit SHA, the pull request's head commit (7 to 64 hex digits), got ${JSON.stringify(commit ?? '')}.`,
      'In a workflow: --commit ${{ github.event.pull_request.head.sha }} (docs/ci.md).',
    );
  return { number, commit: commit.toLowerCase() };
}
