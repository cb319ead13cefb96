/**
 * `plan --all --shard I/N` (docs/ci.md): the share of the chosen deployments that job I of N plans, so a CI
 * matrix of N jobs plans the fleet between them and `plan --merge` makes their saved plans one comment. The
 * share is deterministic: every job computes the same chosen list (declaration order, after --deployment and
 * --changed) and takes every N-th deployment from the I-th on, so the shares are disjoint, cover the list, and
 * differ in size by one at most.
 */
import { AbortError } from '../../errors.js';

export interface Shard {
  /** 1-based: job I of `count`. */
  index: number;
  count: number;
}

/** The `--shard` value as a Shard; undefined when the flag was not given. */
export function parseShard(value: unknown): Shard | undefined {
  if (value === undefined) return undefined;
  const match = typeof value === 'string' ? /^(\d{1,4})\/(\d{1,4})$/.exec(value) : null;
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || index > count) {
    throw new AbortError(
      `--shard ${String(value)}: give I/N, this job's number I of N jobs, with 1 <= I <= N.`,
      'For example --shard 1/4, --shard 2/4, --shard 3/4 and --shard 4/4 in four jobs (a CI matrix: docs/ci.md).',
    );
  }
  return { index, count };
}

/** The deployments of `chosen` that shard `shard` plans: the I-th, the (I+N)-th, and so on. */
export function shareOf<T>(chosen: readonly T[], shard: Shard): T[] {
  return chosen.filter((_, position) => position % shard.count === shard.index - 1);
}
