// `--shard I/N`: the N shares of a list are disjoint, cover it, keep its order and differ in size by one at most;
// `--shard NAME` is one deployment of the run; a malformed value is refused with what to give.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseShard, shareOf } from '../../../src/cli/deployments/shard.js';

describe('--shard I/N', () => {
  it('splits any list into N disjoint shares that cover it, in order, balanced', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 60 }), fc.integer({ min: 1, max: 12 }), (names, count) => {
        const shares = Array.from({ length: count }, (_, i) =>
          shareOf(
            names.map((name) => ({ name })),
            { index: i + 1, count },
          ).map((d) => d.name),
        );
        expect(shares.flat().sort()).toEqual([...names].sort());
        for (const share of shares) expect(share).toEqual(names.filter((n) => share.includes(n)));
        const sizes = shares.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('reads I/N, and refuses what is not one', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(undefined)).toBeUndefined();
    for (const bad of ['0/3', '4/3', '1', '1/0', 'a/b', '-1/3', '1/3/4', '-prod']) {
      expect(() => parseShard(bad)).toThrow(
        `--shard ${bad}: give I/N, this job's number I of N jobs, with 1 <= I <= N, or the name of one deployment.`,
      );
    }
  });

  it('reads NAME: the one deployment of the run so named, and refuses one the run did not choose', () => {
    const chosen = [{ name: 'dev' }, { name: 'prod-eu' }];
    expect(parseShard('prod-eu')).toEqual({ name: 'prod-eu' });
    expect(shareOf(chosen, { name: 'prod-eu' })).toEqual([{ name: 'prod-eu' }]);
    expect(() => shareOf(chosen, { name: 'prod' })).toThrow('--shard prod: the run chose no deployment "prod" (it chose dev, prod-eu).');
  });
});
