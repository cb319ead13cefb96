/**
 * `cplane plan --merge DIR...` (docs/ci.md): the plans the jobs of a CI matrix saved with `plan --all --shard I/N
 * --out DIR`, put together into the report one `plan --all` run makes: the same matrix, the same pull-request
 * comment byte for byte (--markdown, --github), the same JSON and exit code. Nothing is trusted before it is
 * checked: each plan's MAC (a forged or edited file stops the merge), one CI run for all of them (the one this job
 * belongs to, when it knows it: a shard replayed from an earlier run is refused), one run's choice of deployments
 * and one version of the configuration, and each deployment once. A deployment with no plan (its job
 * failed, its artifact was not downloaded) is a row that says so, and the merge exits 1.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderPlanText } from '../../render/index.js';
import { readPlanToMerge, type SavedPlan } from '../../saved-plan/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { planRunExitCode, showPlannedDeployments, type PlannedDeployment } from '../deployments/report.js';
import { runOf, runWords } from '../deployments/shard.js';
import { exitCodes, planExitCode } from '../exit-codes.js';

/** The flags that say how to show the merged report; every other flag of `plan` makes a plan, which --merge does not. */
const MERGE_FLAGS = new Set(['merge', 'json', 'markdown', 'github', 'detailed-exitcode', 'run']);

const NO_PLAN = 'no saved plan among the merged folders (did its job fail, or its artifact not download?)';

interface Found {
  path: string;
  plan: SavedPlan & { origin: { deployment: string; fleet: string[] } };
}

export async function mergePlans(ctx: CommandContext): Promise<number> {
  const { values } = ctx;
  for (const [flag, value] of Object.entries(values)) {
    if (value !== undefined && !MERGE_FLAGS.has(flag))
      throw new AbortError(
        `--${flag} cannot be used with --merge: the merge reads saved plans and makes none.`,
        'Give it to the `cplane plan --all --out DIR` runs whose plans are merged.',
      );
  }
  if (values.json && values.markdown) throw new AbortError('--json and --markdown cannot be used together.', 'Pick one output format.');
  if (ctx.positionals.length === 0)
    throw new AbortError(
      '--merge needs the folders of saved plans: `cplane plan --merge DIR...`.',
      'Give the folders `cplane plan --all --shard I/N --out DIR` wrote (in CI, the downloaded artifacts).',
    );

  const found = await savedPlans(ctx);
  refuseOtherRunThanThis(found, runOf(ctx));
  const first = found[0]!.plan;
  const fleet = first.origin.fleet;
  const byDeployment = new Map<string, Found>();
  const doubled: string[] = [];
  for (const f of found) {
    const other = byDeployment.get(f.plan.origin.deployment);
    if (other) doubled.push(`${f.plan.origin.deployment} (${other.path} and ${f.path})`);
    else byDeployment.set(f.plan.origin.deployment, f);
    refuseOtherRun(f, found[0]!);
  }
  if (doubled.length > 0) {
    throw new AbortError(
      `Two plans for one deployment: ${doubled.join('; ')}. Nothing was merged.`,
      "Give each deployment's plan once: one folder per job of `plan --all --shard I/N --out DIR`, each job with its own I.",
    );
  }

  const planned: PlannedDeployment[] = fleet.map((name) => {
    const f = byDeployment.get(name);
    if (!f) return { deployment: name, account: '-', code: exitCodes.error, error: NO_PLAN, stdout: '', stderr: `${NO_PLAN}\n` };
    const text = !values.json && !values.markdown ? renderPlanText(f.plan, { color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR }) : '';
    return { deployment: name, account: f.plan.account, code: planExitCode(f.plan, true), plan: f.plan, stdout: text, stderr: '' };
  });
  const missing = fleet.filter((name) => !byDeployment.has(name));
  if (missing.length > 0)
    ctx.stderr.write(`No plan for ${missing.join(', ')} (${missing.length} of ${fleet.length} deployments): ${NO_PLAN}.\n`);

  showPlannedDeployments(ctx, planned, { dir: resolve(ctx.cwd, first.origin.configDir), count: fleet.length });
  return planRunExitCode(planned, values['detailed-exitcode'] === true);
}

/** Every `*.plan.json` of the folders, each read within bounds, checked against the schema and its MAC checked. */
async function savedPlans(ctx: CommandContext): Promise<Found[]> {
  const paths: string[] = [];
  for (const folder of ctx.positionals) {
    const dir = resolve(ctx.cwd, folder);
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      throw new AbortError(`--merge ${folder}: not a folder.`, 'Give the folders `cplane plan --all --out DIR` wrote.');
    paths.push(
      ...readdirSync(dir)
        .filter((name) => name.endsWith('.plan.json'))
        .sort()
        .map((name) => join(dir, name)),
    );
  }
  if (paths.length === 0)
    throw new AbortError(
      `No saved plans (NAME.plan.json) in ${ctx.positionals.join(', ')}.`,
      'Give the folders `cplane plan --all --out DIR` wrote (in CI, the downloaded artifacts).',
    );
  return Promise.all(
    paths.map(async (path) => {
      const plan = await readPlanToMerge(ctx.env, path);
      const { deployment, fleet } = plan.origin;
      if (deployment === undefined || fleet === undefined) {
        throw new AbortError(
          `${path} is not the plan of a deployment made by \`cplane plan --all\`. Nothing was merged.`,
          'Merge only the folders `cplane plan --all --shard I/N --out DIR` wrote.',
        );
      }
      return { path, plan: plan as Found['plan'] };
    }),
  );
}

/**
 * Refuses plans of another CI run than the one this merge belongs to (`--run`, GITHUB_RUN_ID and GITHUB_SHA), when it
 * knows it: a folder of shards replayed whole from an earlier run of the same deployments has one run of its own.
 */
function refuseOtherRunThanThis(found: readonly Found[], run: ReturnType<typeof runOf>): void {
  if (!run) return;
  for (const f of found) {
    const made = f.plan.origin.run;
    if (made?.id === run.id && (made.commit === undefined || run.commit === undefined || made.commit === run.commit)) continue;
    throw new AbortError(
      `${f.path} was made by ${runWords(made)}, and this merge belongs to ${runWords(run)}: a shard of an earlier run is not merged. Nothing was merged.`,
      'Merge the plans this run saved: download the artifacts of this workflow run only (or give --run the id of the run that made them).',
    );
  }
}

/**
 * Refuses a plan made by another run (another choice of deployments) or from another version of the configuration.
 * Both were written by cplane and are under the plan's MAC, so plain JSON text compares them.
 */
function refuseOtherRun(f: Found, first: Found): void {
  const differs = (what: string) =>
    new AbortError(
      `${f.path} and ${first.path} were made by two different runs: ${what}. Nothing was merged.`,
      'Merge the plans of one run: every job of the matrix plans the same commit with the same flags (only --shard differs).',
    );
  const [mine, theirs] = [f.plan.origin, first.plan.origin];
  if (JSON.stringify(mine.run ?? null) !== JSON.stringify(theirs.run ?? null))
    throw differs(`${runWords(mine.run)} and ${runWords(theirs.run)} (a shard of an earlier run?)`);
  if (mine.fleet.length !== theirs.fleet.length || mine.fleet.some((name, i) => name !== theirs.fleet[i])) {
    throw differs(`one chose ${mine.fleet.join(', ')}, the other ${theirs.fleet.join(', ')}`);
  }
  if (mine.configDir !== theirs.configDir || JSON.stringify(mine.files) !== JSON.stringify(theirs.files))
    throw differs('their configuration files differ (planned at two commits?)');
  if (!mine.fleet.includes(mine.deployment)) throw differs(`its deployment ${mine.deployment} is not among the run's`);
}
