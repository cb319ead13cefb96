// The one full collection after a large workspace opens (src/session/collect-garbage.ts), in a child process as the
// CLI runs: bin/v8-flags.js's flags first, then the built module. Heap sizes, not times, are compared.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { assertFreshBuild } from '../helpers/built-cli.js';

const root = join(import.meta.dirname, '..', '..');

interface Heap {
  before: number;
  after: number;
}

/** For each size in MB: that much garbage made, then the used heap before and after `collectGarbageAfterLoading`. */
function heapAround(garbageMb: number[], withFlags: boolean): Heap[] {
  assertFreshBuild();
  const script = `
    ${withFlags ? `require(${JSON.stringify(join(root, 'bin', 'v8-flags.js'))}).setV8Flags();` : ''}
    const { getHeapStatistics } = require('node:v8');
    import(${JSON.stringify(join(root, 'dist', 'session', 'collect-garbage.js'))}).then(({ collectGarbageAfterLoading }) => {
      const heaps = [];
      for (const mb of ${JSON.stringify(garbageMb)}) {
        // Kept until it has been promoted to the old generation, then dropped: garbage only a full collection returns.
        let kept = [];
        for (let i = 0; i < mb * 1024; i++) kept.push({ i, text: 'x'.repeat(900) + i });
        kept = null;
        const before = getHeapStatistics().used_heap_size;
        collectGarbageAfterLoading();
        heaps.push({ before, after: getHeapStatistics().used_heap_size });
      }
      console.log(JSON.stringify(heaps));
    });`;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as Heap[];
}

/** Not collected: the heap stays about as it was (V8's background sweeping may still return a little of it). */
const leftAlone = ({ before, after }: Heap) => after > before * 0.9;

it('under the CLI flags, a heap grown past 40 MB is collected the first time a workspace opens, and only then', () => {
  const [first, second] = heapAround([120, 120], true);
  expect(first!.before).toBeGreaterThan(40 * 1024 * 1024);
  expect(first!.after).toBeLessThan(first!.before / 2);
  expect(second!.before).toBeGreaterThan(40 * 1024 * 1024);
  expect(leftAlone(second!)).toBe(true);
});

it('a small heap is left alone, and without the flags there is nothing to call', () => {
  const [small, large] = heapAround([4, 120], true);
  expect(leftAlone(small!)).toBe(true);
  expect(large!.after).toBeLessThan(large!.before / 2);
  const [unflagged] = heapAround([120], false);
  expect(unflagged!.before).toBeGreaterThan(40 * 1024 * 1024);
  expect(leftAlone(unflagged!)).toBe(true);
});
