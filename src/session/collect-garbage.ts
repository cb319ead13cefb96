/**
 * One full garbage collection once a large workspace has opened, before the command plans or applies.
 *
 * Loading leaves most of what it allocated as garbage: parsing a 300 KB configuration and checking the MACs of
 * 10,000 state entries leave about 60 MB, of which little is live. V8 collects its old generation only when it has
 * grown to about four times what was live at its last collection, so the plan's own allocations pile up on that
 * garbage. Collecting once here took a plan at 10,020 resources from 150–152 MB of peak RSS to 139–142 MB, for a
 * collection of about 23 ms (docs/performance.md, "Issue 51"). A small workspace is left alone: its heap is not worth
 * the pause. Once per process at most: `plan --all` opens a workspace per deployment, and a collection each would
 * add up.
 *
 * V8 gives the collector to code only under `--expose-gc`. bin/v8-flags.js sets that flag before the bundle
 * compiles; a context made after it (here, by `vm`) has `gc`, and calling it collects the whole heap. Run any other
 * way (from the TypeScript sources, or the SDK's users), there is no collector and this does nothing.
 */
import { getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Below this much live and dead heap, a collection costs more than the memory it returns. */
const WORTH_COLLECTING_BYTES = 40 * 1024 * 1024;

let collected = false;

function findCollector(): (() => void) | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  try {
    const inContext: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    return typeof inContext === 'function' ? (inContext as () => void) : null;
  } catch {
    return null;
  }
}

/** Collects the whole heap the first time it has grown large, if the process was started with a collector. */
export function collectGarbageAfterLoading(): void {
  if (collected || getHeapStatistics().used_heap_size < WORTH_COLLECTING_BYTES) return;
  collected = true;
  findCollector()?.();
}
