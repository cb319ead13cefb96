/**
 * `cplane plan --all` and `plan --deployment NAME` (docs/deployments.md): one real plan per deployment, all
 * at once (sharing one limit of requests in flight), then one matrix (deployment x add / change / replace /
 * remove / policy / incomplete) before each deployment's own plan. A deployment that fails does not hide the
 * others. `--out DIR` saves one authenticated plan per deployment (`DIR/NAME.plan.json`, for `cplane apply
 * DIR`); `--github` writes one pull-request comment for the whole configuration. `--shard I/N` (or `--shard NAME`)
 * plans one job's share of the deployments (cli/deployments/shard.ts), for `plan --merge` (commands/plan-merge.ts) to
 * put together; each plan records the CI run it belongs to.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plan } from '../../plan-model/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { parseShard, runOf, shardRun, shardWords, shareOf } from './shard.js';
import { planRunExitCode, showPlannedDeployments, type PlannedDeployment } from './report.js';
import { chooseDeployments, deploymentContext, runCaught, sharedLimiter } from './choose.js';
import { githubReporter } from '../report/github-flag.js';
import { writeWeakSecretWarnings } from '../report/weak-secrets.js';

/** The file `plan --all --out DIR` saves a deployment's plan in. */
export const planFileName = (deployment: string) => `${deployment}.plan.json`;

export async function planDeployments(
  ctx: CommandContext,
  planOne: (ctx: CommandContext, onPlan: (plan: Plan) => void) => Promise<number>,
): Promise<number> {
  const { values } = ctx;
  if (values.json && values.markdown) throw new AbortError('--json and --markdown cannot be used together.', 'Pick one output format.');
  const shard = parseShard(values.shard);
  // A configuration refused as a whole (a var file outside its folder) is annotated at its lines, as one plan's is.
  const { dir, chosen } = await chooseDeployments(ctx, 'plan').catch((error: unknown) => {
    githubReporter(ctx)?.failed(error, 'plan');
    throw error;
  });
  const share = shard ? shareOf(chosen, shard) : chosen;
  const ciRun = shard ? shardRun(ctx, shard) : runOf(ctx);
  if (shard)
    ctx.stderr.write(
      `--shard ${shardWords(shard)}: ${share.length === 0 ? 'no deployment' : share.map((d) => d.name).join(', ')} (${share.length} of ${chosen.length}).\n`,
    );
  // Each plan records the whole run's choice, so `plan --merge` can tell a missing or doubled shard.
  const fleet = chosen.map((d) => d.name);
  const outDir = typeof values.out === 'string' ? resolve(ctx.cwd, values.out) : undefined;
  if (outDir) mkdirSync(outDir, { recursive: true });
  const limiter = sharedLimiter(ctx, share.length);

  const planned: PlannedDeployment[] = await Promise.all(
    share.map(async (deployment): Promise<PlannedDeployment> => {
      const run = deploymentContext(ctx, deployment, {
        limiter,
        capture: true,
        fleet,
        ...(ciRun ? { run: ciRun } : {}),
        // Each deployment's own exit code says what its plan amounts to; the matrix and the code of the run add them up.
        values: { github: false, 'detailed-exitcode': true, ...(outDir ? { out: join(outDir, planFileName(deployment.name)) } : {}) },
      });
      let plan: Plan | undefined;
      const { code, error } = await runCaught(() => planOne(run.ctx, (made) => (plan = made)), ['plan'], run.ctx);
      return {
        deployment: deployment.name,
        account: deployment.account,
        code,
        ...(plan ? { plan } : {}),
        ...(error ? { error } : {}),
        ...run.captured(),
      };
    }),
  );

  // Once for the run, on stderr, not in each deployment's section.
  writeWeakSecretWarnings(ctx);
  showPlannedDeployments(ctx, planned, {
    dir,
    count: chosen.length,
    ...(outDir ? { planDir: outDir } : {}),
    ...(shard ? { share: true } : {}),
  });
  if (outDir && !values.json && !values.markdown)
    ctx.stderr.write(
      `Saved ${planned.filter((p) => p.plan).length} plan(s) to ${outDir}; apply exactly these plans with \`cplane apply ${String(values.out)}\`.\n`,
    );
  return planRunExitCode(planned, values['detailed-exitcode'] === true);
}
