// The one full collection after a large workspace opens (src/session/collect-garbage.ts), in a child process as the
// CLI runs: bin/v8-flags.js's flags first, then the built module. Heap sizes, not times, are compared.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { assertFreshBuild } from '../helpers/built-cli.js';

const root = join(import.meta.dirname, '..', '..');

/** The used heap before and after `collectGarbageAfterLoading`, with `garbageMb` of garbage made first. */
function heapAround(garbageMb: number, withFlags: boolean): { before: number; after: number } {
  assertFreshBuild();
  const script = `
    ${withFlags ? `require(${JSON.stringify(join(root, 'bin', 'v8-flags.js'))}).setV8Flags();` : ''}
    const { getHeapStatistics } = require('node:v8');
    import(${JSON.stringify(join(root, 'dist', 'session', 'collect-garbage.js'))}).then(({ collectGarbageAfterLoading }) => {
      // Kept until it has been promoted to the old generation, then dropped: garbage only a full collection returns.
      let kept = [];
      for (let i = 0; i < ${garbageMb} * 1024; i++) kept.push({ i, text: 'x'.repeat(900) + i });
      kept = null;
      const before = getHeapStatistics().used_heap_size;
      collectGarbageAfterLoading();
      console.log(JSON.stringify({ before, after: getHeapStatistics().used_heap_size }));
    });`;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as { before: number; after: number };
}

it('under the CLI flags, a heap grown past 40 MB is collected once the workspace has opened', () => {
  const { before, after } = heapAround(120, true);
  expect(before).toBeGreaterThan(40 * 1024 * 1024);
  expect(after).toBeLessThan(before / 2);
});

it('a small heap is left alone, and without the flags there is nothing to call', () => {
  // Not collected: the heap stays about as it was (V8's background sweeping may still return a little of it).
  const small = heapAround(4, true);
  expect(small.after).toBeGreaterThan(small.before * 0.9);
  const unflagged = heapAround(120, false);
  expect(unflagged.after).toBeGreaterThan(unflagged.before * 0.9);
});
