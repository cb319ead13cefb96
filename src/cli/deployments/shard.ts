/**
 * `plan --all --shard I/N` and `--shard NAME` (docs/ci.md): the share of the chosen deployments that one job plans,
 * so a CI matrix plans the fleet between its jobs and `plan --merge` makes their saved plans one comment. `I/N` is
 * deterministic: every job computes the same chosen list (declaration order, after --deployment and --changed) and
 * takes every N-th deployment from the I-th on, so the shares are disjoint, cover the list, and differ in size by
 * one at most. `NAME` is one deployment of that list: a job per deployment, in the GitHub environment that holds its
 * token alone (`cplane deployments --matrix` gives each job its name and environment).
 *
 * The shards of one merge come from one run, and the run is the CI's, not a process: `--run ID`, else the workflow
 * run (GITHUB_RUN_ID) and its commit (GITHUB_SHA). Each saved plan records it under its MAC, so a shard replayed
 * from an earlier run of the same deployments is refused by the merge (commands/plan-merge.ts).
 */
import type { PlanRun } from '../../plan-model/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';

/** Job I of `count` (1-based), or the one deployment `name`. */
export type Shard = { index: number; count: number } | { name: string };

const SHARD_HINT =
  'For example --shard 1/4 ... --shard 4/4 in four jobs, or --shard ${{ matrix.deployment }} in a job per deployment (a CI matrix: docs/ci.md).';

/** The `--shard` value as a Shard; undefined when the flag was not given. */
export function parseShard(value: unknown): Shard | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_-]{0,62}$/.test(value)) return { name: value };
  const match = typeof value === 'string' ? /^(\d{1,4})\/(\d{1,4})$/.exec(value) : null;
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || index > count) {
    throw new AbortError(
      `--shard ${String(value)}: give I/N, this job's number I of N jobs, with 1 <= I <= N, or the name of one deployment.`,
      SHARD_HINT,
    );
  }
  return { index, count };
}

/** How a shard is named in what cplane prints. */
export const shardWords = (shard: Shard): string => ('name' in shard ? shard.name : `${shard.index}/${shard.count}`);

/** The deployments of `chosen` that shard `shard` plans: the I-th, the (I+N)-th, and so on; or the one named. */
export function shareOf<T extends { name: string }>(chosen: readonly T[], shard: Shard): T[] {
  if (!('name' in shard)) return chosen.filter((_, position) => position % shard.count === shard.index - 1);
  const named = chosen.filter((d) => d.name === shard.name);
  if (named.length === 0)
    throw new AbortError(
      `--shard ${shard.name}: the run chose no deployment "${shard.name}" (it chose ${chosen.map((d) => d.name).join(', ') || 'none'}).`,
      'Give each job a deployment of the run: the matrix of `cplane deployments --matrix`, with the same --deployment and --changed flags as the plan.',
    );
  return named;
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The CI run this command belongs to: `--run ID`, else GitHub Actions' workflow run (GITHUB_RUN_ID, without
 * GITHUB_RUN_ATTEMPT: "re-run failed jobs" keeps the artifacts of the jobs that passed, which must still merge),
 * with its commit (GITHUB_SHA) when known; undefined outside CI without --run.
 */
export function runOf(ctx: CommandContext): PlanRun | undefined {
  const flag = ctx.values.run;
  const id = typeof flag === 'string' ? flag : ctx.env.GITHUB_RUN_ID || undefined;
  if (id === undefined) return undefined;
  if (!RUN_ID.test(id))
    throw new AbortError(
      `${typeof flag === 'string' ? '--run' : 'GITHUB_RUN_ID'} ${JSON.stringify(id).slice(0, 120)} is not a run id: letters, digits, '.', '_', ':' and '-', at most 100.`,
      "Give the CI's own id of this run, the same in every job of it (GitHub Actions: leave --run out, GITHUB_RUN_ID is used).",
    );
  const commit = ctx.env.GITHUB_SHA;
  return { id, ...(commit && COMMIT.test(commit) ? { commit } : {}) };
}

/** The run of a sharded plan: required, since the merge takes only shards of one run. */
export function shardRun(ctx: CommandContext, shard: Shard): PlanRun {
  const run = runOf(ctx);
  if (!run)
    throw new AbortError(
      `--shard ${shardWords(shard)}: a shard is merged only with the shards of its own run, and this job does not know its run.`,
      "In GitHub Actions GITHUB_RUN_ID and GITHUB_SHA say it; elsewhere give every job of the run, and the merge, the same --run ID (the CI pipeline's id).",
    );
  return run;
}

/** How a run is named in what cplane prints. */
export const runWords = (run: PlanRun | undefined): string =>
  run === undefined ? 'no run' : `run ${run.id}${run.commit ? ` at commit ${run.commit.slice(0, 12)}` : ''}`;
