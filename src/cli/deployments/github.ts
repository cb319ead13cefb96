/**
 * `plan --all --github` (docs/deployments.md, docs/ci.md): ONE pull-request comment for the whole
 * configuration, the matrix and a collapsible section per deployment, kept within what GitHub takes in one
 * comment (the sections that do not fit are named in it, and are in the step summary, which has them all),
 * and step outputs for the run and for each deployment.
 */
import { relative } from 'node:path';
import { appendStepSummary, writeStepOutputs } from '../../github/index.js';
import { COMMENT_LIMIT as GITHUB_COMMENT_LIMIT } from '../../github/comment-parts.js';
import type { DeploymentSummary, Plan } from '../../plan-model/index.js';
import { renderDeploymentsMarkdown, type DeploymentSection } from '../../render/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { policyAnnotation, writeMarkdownFile } from '../report/github-flag.js';

/** What the comment's body may hold: GitHub's limit less the room the comment step keeps for its marker. */
export const COMMENT_LIMIT = GITHUB_COMMENT_LIMIT - 400;

export interface DeploymentsReport {
  dir: string;
  rows: DeploymentSummary[];
  sections: DeploymentSection[];
  plans: Plan[];
  title: string;
  planDir?: string;
  /**
   * `plan --all --shard I/N`: a share of the deployments, so no comment (no `markdown_file`, `comment_key`): the
   * action's comment step is skipped, and the fleet's one comment is `plan --merge`'s.
   */
  share?: boolean;
}

export function reportDeploymentsToGithub(ctx: CommandContext, report: DeploymentsReport): { left: string[] } {
  const { env } = ctx;
  const comment = renderDeploymentsMarkdown(report.rows, report.sections, { title: report.title, limit: COMMENT_LIMIT });
  const full = renderDeploymentsMarkdown(report.rows, report.sections, { title: report.title, limit: Number.POSITIVE_INFINITY }).markdown;
  appendStepSummary(env, full, `in the job log above${report.planDir ? ` and in the saved plans of ${report.planDir}` : ''}`);
  for (const plan of report.plans) for (const f of plan.policies?.findings ?? []) ctx.stdout.write(`${policyAnnotation(f)}\n`);
  const markdownFile = report.share ? '' : writeMarkdownFile(env, comment.markdown);
  const folder =
    relative(env.GITHUB_WORKSPACE || ctx.cwd, report.dir)
      .split('\\')
      .join('/') || '.';
  const perDeployment = Object.fromEntries(
    report.rows.flatMap((row) => [
      [`has_changes_${row.deployment}`, String(!row.error && row.changes)],
      [`failed_${row.deployment}`, String(row.error !== undefined || row.blocked)],
    ]),
  );
  writeStepOutputs(env, {
    has_changes: String(report.rows.some((row) => !row.error && row.changes)),
    failed: String(report.rows.some((row) => row.error !== undefined || row.blocked)),
    deployments: JSON.stringify(report.rows),
    plan_dir: report.planDir ?? '',
    markdown_file: markdownFile,
    // One comment for the configuration, whatever accounts its deployments are in.
    comment_key: report.share ? '' : `${folder}:deployments`,
    ...perDeployment,
  });
  return { left: comment.left };
}
