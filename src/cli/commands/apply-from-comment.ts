/**
 * `cplane apply PLANFILE|DIR --from-comment [--approvals N]`: the apply a `/cplane apply [DEPLOYMENT…]` comment on a
 * pull request asks for, in an `issue_comment` workflow (docs/ci.md). It checks the gate (github/apply-gate.ts)
 * before the state is opened; each refusal is a comment on the pull request that says why, and nothing is applied.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkApplyGate, githubRepository, parseApplyComment, type Approval, type GithubCall } from '../../github/index.js';
import { readPlanFile } from '../../saved-plan/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { markdownText } from '../../text/escape-for.js';
import { safeText } from '../../text/safe-text.js';

/** An event payload larger than this is not GitHub's. */
const MAX_EVENT_BYTES = 1024 * 1024;

export interface CommentApply {
  approval: Approval;
  /** The deployments the comment names: the only ones applied from a folder of plans. */
  deployments: string[];
}

export async function gateFromComment(ctx: CommandContext): Promise<CommentApply> {
  const { env } = ctx;
  const missing = ['GITHUB_EVENT_PATH', 'GITHUB_REPOSITORY', 'GITHUB_TOKEN'].filter((name) => !env[name]);
  if (missing.length > 0)
    throw new AbortError(
      `--from-comment runs in an issue_comment workflow: ${missing.join(', ')} not set. Nothing was applied.`,
      'Run it as docs/ci.md shows (on: issue_comment), with GITHUB_TOKEN in the step environment.',
    );
  const call = githubRepository(env.GITHUB_API_URL || 'https://api.github.com', env.GITHUB_REPOSITORY!, env.GITHUB_TOKEN!);
  const parsed = parseApplyComment(readEvent(env.GITHUB_EVENT_PATH!));
  const refuse = (pullRequest: number | undefined, reason: string) => refuseWithComment(ctx, call, pullRequest, reason);
  if (!parsed.ok) return refuse(parsed.pullRequest, parsed.reason);
  const { comment } = parsed;
  const approvals = approvalsWanted(ctx.values.approvals);
  const plans = await plansGiven(ctx, comment.deployments).catch((error: unknown) => {
    if (error instanceof GateRefusal) return refuse(comment.pullRequest, error.message);
    throw error;
  });
  const result = await checkApplyGate({ call, comment, plans, approvals });
  if (!result.ok) return refuse(comment.pullRequest, result.reason);
  return { approval: result.approval, deployments: comment.deployments };
}

function readEvent(path: string): unknown {
  const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  if (size === 0 || size > MAX_EVENT_BYTES)
    throw new AbortError(`The event file ${path} is empty, missing or larger than ${MAX_EVENT_BYTES} bytes. Nothing was applied.`);
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

function approvalsWanted(value: unknown): number {
  const text = typeof value === 'string' ? value : '1';
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 20)
    throw new AbortError(`--approvals must be a whole number from 0 to 20 (got ${JSON.stringify(text)}).`, 'For example --approvals 2.');
  return n;
}

class GateRefusal extends Error {}

/** The plans the apply would apply (a file, or a folder's plans of the deployments named), with the pull request each was made for. */
async function plansGiven(ctx: CommandContext, deployments: string[]) {
  const where = ctx.positionals[0];
  if (where === undefined) throw new AbortError('--from-comment applies a saved plan: give PLANFILE or the folder of plans.');
  const path = resolve(ctx.cwd, where);
  const files = statSync(path, { throwIfNoEntry: false })?.isDirectory()
    ? readdirSync(path)
        .filter((n) => n.endsWith('.plan.json'))
        .sort()
        .map((n) => join(path, n))
    : [path];
  const plans = await Promise.all(files.map(async (file) => ({ file, plan: await readPlanFile(file) })));
  const named = new Set(deployments);
  const unknown = deployments.filter((d) => !plans.some((p) => p.plan.origin.deployment === d));
  if (unknown.length > 0) throw new GateRefusal(`there is no plan for ${unknown.join(', ')} in ${where}`);
  return plans
    .filter((p) => named.size === 0 || named.has(p.plan.origin.deployment ?? ''))
    .map(({ file, plan }) => ({
      name: plan.origin.deployment ?? file.split('/').at(-1)!,
      pullRequest: plan.origin.pullRequest?.number,
      commit: plan.origin.pullRequest?.commit,
    }));
}

async function refuseWithComment(ctx: CommandContext, call: GithubCall, pullRequest: number | undefined, reason: string): Promise<never> {
  if (pullRequest !== undefined) {
    const body = `**cplane apply refused:** ${markdownText(reason)}.\n\nNothing was applied.`;
    await call('POST', `/issues/${pullRequest}/comments`, { body }).catch((error: unknown) =>
      ctx.stderr.write(
        `Warning: the refusal could not be commented on pull request #${pullRequest} (${safeText(error instanceof Error ? error.message : String(error))}).\n`,
      ),
    );
  }
  throw new AbortError(
    `cplane apply refused: ${safeText(reason)}. Nothing was applied.`,
    'The pull request has a comment that says why; comment `/cplane apply` again once it holds.',
  );
}
