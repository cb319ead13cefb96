/**
 * `cplane plan [dir]`: refresh the live account, compare it with the
 * configuration and state, and show what apply would do. Reads state without
 * taking its lock (a plan changes nothing). `--out FILE` saves the plan for
 * `cplane apply FILE`; `--json` and `--markdown` print it for machines and for
 * pull-request comments; `--detailed-exitcode` exits 2 when there are changes
 * and 3 when the plan is incomplete (cli/exit-codes.ts).
 */
import { resolve } from 'node:path';
import { makePlan } from '../../planner/index.js';
import { renderPlanJson, renderPlanMarkdown, renderPlanText, renderPullRequestNotes, type SharedAddresses } from '../../render/index.js';
import { overlappingPlans, type StateStore } from '../../state/index.js';
import { pullRequestOf, type PullRequestRef } from '../report/pull-request.js';
import { safeText } from '../../text/safe-text.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import type { Plan } from '../../plan-model/index.js';
import { wantsDeployments } from '../deployments/choose.js';
import { planDeployments } from '../deployments/plan-all.js';
import { mergePlans } from './plan-merge.js';
import { parseParallelism } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { planExitCode } from '../exit-codes.js';
import { githubReporter } from '../report/github-flag.js';
import { reportPlanProblems } from '../report/plan-problems.js';
import { readingStatus } from '../report/reading-status.js';
import { accountNameOf, planOrigin, withMac, writePlanFile } from '../../saved-plan/index.js';
import { refuseTargetWithExclude } from '../target-flags.js';
import { openWorkspace } from '../../session/workspace.js';
import { writeWeakSecretWarnings } from '../report/weak-secrets.js';
import { suggestedCommand } from '../../text/escape-for.js';

export const planCommand: CommandModule = {
  run(ctx) {
    if (ctx.values.merge === true) return mergePlans(ctx);
    if (wantsDeployments(ctx)) return planDeployments(ctx, planOne);
    if (ctx.values.run !== undefined)
      throw new AbortError(
        '--run names the CI run that shards belong to: it is used with --all and with --merge.',
        'Leave it out, or run `cplane plan --all --shard I/N --run ID --out DIR` in each job (docs/ci.md).',
      );
    if (ctx.values.shard !== undefined)
      throw new AbortError(
        '--shard plans a share of the deployments: it needs --all (or --deployment, or --changed).',
        'Run `cplane plan --all --shard I/N --out DIR` in each of N jobs, then `cplane plan --merge DIR...` (docs/ci.md).',
      );
    return planOne(ctx);
  },
};

/** What the flags ask of one plan, checked before anything is read. */
interface PlanSettings {
  parallelism: number;
  mode: Plan['mode'];
  targets: string[];
  exclude: string[];
  replace: string[];
  rewrap: boolean;
}

function planSettings(values: CommandContext['values']): PlanSettings {
  if (values.json && values.markdown) throw new AbortError('--json and --markdown cannot be used together.', 'Pick one output format.');
  if (values['refresh-only'] && values.destroy)
    throw new AbortError(
      '--refresh-only and --destroy cannot be used together.',
      'A refresh-only plan never removes anything; run them separately.',
    );
  const parallelism = parseParallelism(values.parallelism);
  const mode = values.destroy ? 'destroy' : values['refresh-only'] ? 'refresh-only' : 'normal';
  const targets = (values.target as string[] | undefined) ?? [];
  const exclude = (values.exclude as string[] | undefined) ?? [];
  refuseTargetWithExclude(targets, exclude);
  const replace = (values.replace as string[] | undefined) ?? [];
  const rewrap = values.rewrap === true;
  if ((replace.length > 0 || rewrap) && mode !== 'normal')
    throw new AbortError(
      `--${rewrap ? 'rewrap' : 'replace'} cannot be used with --${mode}.`,
      'A replacement is a write: plan it in a normal plan.',
    );
  return { parallelism, mode, targets, exclude, replace, rewrap };
}

type Workspace = Awaited<ReturnType<typeof openWorkspace>>;

/**
 * Opens the workspace to read the account (plan, drift): no lock, and on a terminal a status line that counts the
 * requests while the account is read; a configuration or state that cannot be opened is reported to GitHub too.
 */
export async function openToRead(ctx: CommandContext, verb: 'plan' | 'drift') {
  const github = githubReporter(ctx);
  const status = readingStatus(ctx.stderr, { enabled: !ctx.values.json && !ctx.env.CI });
  const workspace = await openWorkspace(ctx, { lock: false, command: `cplane ${verb}`, onClientEvent: status.onClientEvent }).catch(
    (error: unknown) => {
      github?.failed(error, verb);
      throw error;
    },
  );
  return { github, status, workspace };
}

type Opened = Awaited<ReturnType<typeof openToRead>>;

/**
 * Makes the plan of an opened workspace (plan, drift), with its origin. A problem is reported as `--json` or
 * `--format` asks and to GitHub, and its exit code is returned instead of a plan.
 */
export async function readPlan(ctx: CommandContext, opened: Opened, verb: 'plan' | 'drift', settings: Partial<PlanSettings>) {
  const { github, status, workspace } = opened;
  const { desired, state, client, account } = workspace;
  const made = await Promise.all([makePlan({ desired, state, client, account, ...settings, env: ctx.env }), accountNameOf(client, account)])
    .catch((error: unknown) => {
      github?.failed(error, verb);
      const format = verb === 'plan' ? (ctx.values.format as string | undefined) : undefined;
      return reportPlanProblems(error, ctx, { json: ctx.values.json === true, format });
    })
    .finally(() => status.stop());
  if (typeof made === 'number') return made;
  return { ...made[0], origin: await planOrigin(ctx, workspace, made[1]) };
}

/** The plan of one account (or one deployment, `ctx.deployment`); `onPlan` is handed the plan once it is made. */
export async function planOne(ctx: CommandContext, onPlan?: (plan: Plan) => void): Promise<number> {
  const { values } = ctx;
  const settings = planSettings(values);
  const opened = await openToRead(ctx, 'plan');
  const { github, workspace } = opened;
  try {
    const made = await readPlan(ctx, opened, 'plan', settings);
    if (typeof made === 'number') return made;
    const pullRequest = pullRequestOf(ctx);
    const plan = pullRequest ? { ...made, origin: { ...made.origin, pullRequest } } : made;
    onPlan?.(plan);
    const planFile = typeof values.out === 'string' ? resolve(ctx.cwd, values.out) : undefined;
    const digest = planFile ? await savePlan(ctx, workspace, plan, planFile) : undefined;
    const shared = pullRequest ? await registerOpenPlan(ctx, workspace.state, plan, pullRequest, digest) : [];
    showPlan(ctx, workspace, plan, { notes: renderPullRequestNotes(plan, shared), github, planFile });
    return planExitCode(plan, values['detailed-exitcode'] === true);
  } finally {
    await workspace.close();
  }
}

/** Writes the plan file (`--out`) and returns its digest. */
async function savePlan(ctx: CommandContext, workspace: Workspace, plan: Plan, planFile: string): Promise<string> {
  // The whole file is authenticated, so the applying job refuses any edit before it connects anywhere.
  const digest = await writePlanFile(planFile, withMac(plan, workspace.state));
  if (!ctx.values.json && !ctx.values.markdown)
    ctx.stderr.write(
      `Saved the plan to ${planFile}; apply exactly this plan with \`${suggestedCommand(['apply', String(ctx.values.out)])}\`.\n`,
    );
  return digest;
}

/** Prints the plan in the format asked for, and hands it to GitHub (`--github`). */
function showPlan(
  ctx: CommandContext,
  workspace: Workspace,
  plan: Plan,
  { notes, github, planFile }: { notes: string; github: ReturnType<typeof githubReporter>; planFile: string | undefined },
): void {
  const { values } = ctx;
  writeWeakSecretWarnings(ctx);
  if (values.json) ctx.stdout.write(renderPlanJson(plan));
  else if (values.markdown) ctx.stdout.write(renderPlanMarkdown(plan) + notes);
  else
    ctx.stdout.write(
      renderPlanText(plan, {
        color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR,
        ...(ctx.stdout.isTTY && ctx.stdout.columns ? { width: ctx.stdout.columns } : {}),
      }),
    );
  github?.plan(plan, renderPlanMarkdown(plan) + notes, {
    dir: workspace.dir,
    workspace: workspace.workspace,
    ...(planFile ? { planFile } : {}),
  });
}

/**
 * Registers a saved plan of a pull request in the state's open-plan registry (replacing the pull request's earlier
 * plan; a plan with no changes, or not saved, forgets it) and returns the other open plans that share its
 * addresses. The registry only informs: when it cannot be reached the plan says so and goes on.
 */
async function registerOpenPlan(
  ctx: CommandContext,
  state: StateStore,
  plan: Plan,
  pr: PullRequestRef,
  digest: string | undefined,
): Promise<SharedAddresses[]> {
  const registry = state.openPlans;
  if (!registry) return [];
  const addresses = plan.steps.map((s) => s.address);
  try {
    if (digest !== undefined && addresses.length > 0)
      await registry.register({ pr: pr.number, commit: pr.commit, addresses, digest, plannedAt: plan.createdAt });
    else await registry.forget(pr.number);
    return overlappingPlans(await registry.list(), pr.number, addresses);
  } catch (error) {
    ctx.stderr.write(
      `Warning: the open plans of ${safeText(state.path)} could not be read or written (${safeText(error instanceof Error ? error.message : String(error))}); the comment does not list other pull requests.\n`,
    );
    return [];
  }
}
