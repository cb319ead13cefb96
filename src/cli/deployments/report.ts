/**
 * What `plan --all` shows of its deployments' plans, and `plan --merge` of the plans many jobs saved
 * (docs/deployments.md, docs/ci.md): the matrix, each deployment's plan, the JSON document, the one
 * pull-request comment, and the run's exit code. One module for both, so a merged comment is the comment one
 * `plan --all` posts, byte for byte.
 */
import { deploymentSummary, failedDeploymentSummary, type DeploymentSummary, type Plan } from '../../plan-model/index.js';
import { renderDeploymentMatrixText, renderDeploymentsMarkdown, renderPlanMarkdown } from '../../render/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { codeBlock } from '../../text/escape-for.js';
import { safeText } from '../../text/safe-text.js';
import { combinedExitCode, exitCodes } from '../exit-codes.js';
import { COMMENT_LIMIT, reportDeploymentsToGithub } from './github.js';
import { jsonText } from '../../text/json-text.js';

/** One deployment of the run: its plan, or why there is none, and what its own run printed. */
export interface PlannedDeployment {
  deployment: string;
  account: string;
  /** Its own exit code, as `plan --detailed-exitcode` for it alone. */
  code: number;
  plan?: Plan;
  /** The first line of why there is no plan. */
  error?: string;
  stdout: string;
  stderr: string;
}

export interface ShowOptions {
  /** The configuration folder (the comment's key). */
  dir: string;
  /** How many deployments the run chose (`plan --all --shard` shows a share of them). */
  count: number;
  /** Where the plans are saved, when they are. */
  planDir?: string;
  /** `--shard I/N`: a share of the run, which makes no pull-request comment of its own. */
  share?: boolean;
}

/** Writes the run's report in the format the flags ask for (text, --json, --markdown, --github). */
export function showPlannedDeployments(ctx: CommandContext, planned: readonly PlannedDeployment[], options: ShowOptions): void {
  const { values } = ctx;
  const rows: DeploymentSummary[] = planned.map((p) =>
    p.plan
      ? deploymentSummary(p.deployment, p.plan)
      : failedDeploymentSummary(p.deployment, p.account, p.error ?? 'the plan could not be made (see its section)'),
  );
  const sections = planned.map((p) => ({
    deployment: p.deployment,
    markdown: p.plan ? renderPlanMarkdown(p.plan) : codeBlock([...`${p.stderr}${p.stdout}`.trimEnd().split('\n')]),
  }));
  const title = `cplane plan: ${options.count} deployment${options.count === 1 ? '' : 's'}`;

  if (values.json) {
    const document = planned.map((p, i) => ({
      deployment: p.deployment,
      account: p.account,
      exitCode: p.code,
      summary: rows[i],
      ...(p.plan ? { plan: p.plan } : { error: `${p.stderr}${p.stdout}`.trim() }),
    }));
    ctx.stdout.write(`${jsonText({ deployments: document }, 2)}\n`);
  } else if (values.markdown) {
    ctx.stdout.write(renderDeploymentsMarkdown(rows, sections, { title, limit: COMMENT_LIMIT }).markdown);
  } else {
    ctx.stdout.write(renderDeploymentMatrixText(rows, { color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR }));
    for (const p of planned) {
      ctx.stdout.write(
        `\n=== deployment ${p.deployment} (account ${safeText(`${p.plan?.origin?.accountName ? `${p.plan.origin.accountName}, ` : ''}${p.account}`)}) ===\n\n`,
      );
      ctx.stdout.write(p.stdout);
      if (p.stderr) ctx.stdout.write(p.stderr);
    }
  }
  if (values.github === true) {
    const plans = planned.flatMap((p) => (p.plan ? [p.plan] : []));
    const { left } = reportDeploymentsToGithub(ctx, {
      dir: options.dir,
      rows,
      sections,
      plans,
      title,
      ...(options.planDir ? { planDir: options.planDir } : {}),
      ...(options.share ? { share: true } : {}),
    });
    if (left.length > 0 && !options.share)
      ctx.stderr.write(
        `The plans of ${left.join(', ')} do not fit in the one pull-request comment: the comment names them, and the step summary has them.\n`,
      );
  }
}

/** A plan run's exit code from its deployments' (combined as every command's for deployments); without --detailed-exitcode, only an error is not 0. */
export function planRunExitCode(planned: readonly PlannedDeployment[], detailed: boolean): number {
  const code = combinedExitCode(planned.map((p) => p.code));
  return code === exitCodes.error || detailed ? code : exitCodes.ok;
}
