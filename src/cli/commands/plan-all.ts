/**
 * `cplane plan --all` and `plan --deployment NAME` (docs/deployments.md): one real plan per deployment, all
 * at once (sharing one limit of requests in flight), then one matrix (deployment x add / change / replace /
 * remove / policy / incomplete) before each deployment's own plan. A deployment that fails does not hide the
 * others. `--out DIR` saves one authenticated plan per deployment (`DIR/NAME.plan.json`, for `cplane apply
 * DIR`); `--github` writes one pull-request comment for the whole configuration.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deploymentSummary, failedDeploymentSummary, type DeploymentSummary, type Plan } from '../../plan-model/index.js';
import { renderDeploymentMatrixText, renderDeploymentsMarkdown, renderPlanMarkdown } from '../../render/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../session/errors.js';
import { codeBlock } from '../../text/escape-for.js';
import { safeText } from '../../text/safe-text.js';
import { chooseDeployments, deploymentContext, runCaught, sharedLimiter } from '../deployments.js';
import { exitCodes } from '../exit-codes.js';
import { githubReporter } from '../github-flag.js';
import { reportDeploymentsToGithub, COMMENT_LIMIT } from '../github-deployments.js';

/** The file `plan --all --out DIR` saves a deployment's plan in. */
export const planFileName = (deployment: string) => `${deployment}.plan.json`;

interface Planned {
  deployment: string;
  account: string;
  code: number;
  plan?: Plan;
  error?: string;
  stdout: string;
  stderr: string;
}

export async function planDeployments(ctx: CommandContext, planOne: (ctx: CommandContext, onPlan: (plan: Plan) => void) => Promise<number>): Promise<number> {
  const { values } = ctx;
  if (values.json && values.markdown) throw new AbortError('--json and --markdown cannot be used together.', 'Pick one output format.');
  // A configuration refused as a whole (a var file outside its folder) is annotated at its lines, as one plan's is.
  const { dir, chosen } = await chooseDeployments(ctx, 'plan').catch((error: unknown) => {
    githubReporter(ctx)?.failed(error, 'plan');
    throw error;
  });
  const outDir = typeof values.out === 'string' ? resolve(ctx.cwd, values.out) : undefined;
  if (outDir) mkdirSync(outDir, { recursive: true });
  const limiter = sharedLimiter(ctx, chosen.length);
  // Every plan saved in DIR lists them all, under its MAC: `apply DIR` refuses the folder when one is missing.
  const planFolder = outDir ? { run: randomBytes(16).toString('hex'), deployments: chosen.map((d) => d.name) } : undefined;

  const planned: Planned[] = await Promise.all(chosen.map(async (deployment): Promise<Planned> => {
    const run = deploymentContext(ctx, deployment, {
      limiter,
      capture: true,
      // Each deployment's own exit code says what its plan amounts to; the matrix and the code of the run add them up.
      values: { github: false, 'detailed-exitcode': true, ...(outDir ? { out: join(outDir, planFileName(deployment.name)) } : {}) },
    });
    if (planFolder) run.ctx.deployment = { ...run.ctx.deployment!, planFolder };
    let plan: Plan | undefined;
    const { code, error } = await runCaught(() => planOne(run.ctx, (made) => (plan = made)), ['plan'], run.ctx);
    return { deployment: deployment.name, account: deployment.account, code, ...(plan ? { plan } : {}), ...(error ? { error } : {}), ...run.captured() };
  }));

  const rows: DeploymentSummary[] = planned.map((p) =>
    p.plan ? deploymentSummary(p.deployment, p.plan) : failedDeploymentSummary(p.deployment, p.account, p.error ?? 'the plan could not be made (see its section)'));
  const sections = planned.map((p) => ({
    deployment: p.deployment,
    markdown: p.plan ? renderPlanMarkdown(p.plan) : codeBlock([...`${p.stderr}${p.stdout}`.trimEnd().split('\n')]),
  }));
  const title = `cplane plan: ${chosen.length} deployment${chosen.length === 1 ? '' : 's'}`;

  if (values.json) {
    const document = planned.map((p, i) => ({ deployment: p.deployment, account: p.account, exitCode: p.code, summary: rows[i], ...(p.plan ? { plan: p.plan } : { error: `${p.stderr}${p.stdout}`.trim() }) }));
    ctx.stdout.write(`${JSON.stringify({ deployments: document }, null, 2)}\n`);
  } else if (values.markdown) {
    ctx.stdout.write(renderDeploymentsMarkdown(rows, sections, { title, limit: COMMENT_LIMIT }).markdown);
  } else {
    ctx.stdout.write(renderDeploymentMatrixText(rows, { color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR }));
    for (const p of planned) {
      ctx.stdout.write(`\n=== deployment ${p.deployment} (account ${safeText(`${p.plan?.origin?.accountName ? `${p.plan.origin.accountName}, ` : ''}${p.account}`)}) ===\n\n`);
      ctx.stdout.write(p.stdout);
      if (p.stderr) ctx.stdout.write(p.stderr);
    }
    if (outDir) ctx.stderr.write(`Saved ${planned.filter((p) => p.plan).length} plan(s) to ${outDir}; apply exactly these plans with \`cplane apply ${String(values.out)}\`.\n`);
  }
  if (values.github === true) {
    const plans = planned.flatMap((p) => (p.plan ? [p.plan] : []));
    const { left } = reportDeploymentsToGithub(ctx, { dir, rows, sections, plans, title, ...(outDir ? { planDir: outDir } : {}) });
    if (left.length > 0) ctx.stderr.write(`The plans of ${left.join(', ')} do not fit in the one pull-request comment: the comment names them, and the step summary has them.\n`);
  }

  // An error anywhere is the run's error; then an incomplete plan; then changes.
  const codes = planned.map((p) => p.code);
  if (codes.some((c) => c !== exitCodes.ok && c !== exitCodes.changes && c !== exitCodes.incomplete)) return exitCodes.error;
  if (!values['detailed-exitcode']) return exitCodes.ok;
  if (codes.includes(exitCodes.incomplete)) return exitCodes.incomplete;
  return codes.includes(exitCodes.changes) ? exitCodes.changes : exitCodes.ok;
}
