// Ctrl-C: no new write starts; the writes in flight finish and are recorded; the rest is reported as not started.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, makePlanOf, projectStep, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await harness({ latencyMs: 5 });
});
afterEach(async () => h.close());

describe('an interrupted apply', () => {
  it('finishes the write in flight and starts nothing new', async () => {
    const controller = new AbortController();
    const plan = makePlanOf(['i1', 'i2', 'i3'].map((n) => projectStep(n)));
    // Ctrl-C while the first write is on the wire.
    h.onClientEvent = (e) => {
      if (e.type === 'request') controller.abort();
    };
    const result = await h.apply(plan, { parallelism: 1, signal: controller.signal });
    expect(result.interrupted).toBe(true);
    expect(result.done.map((d) => d.address)).toEqual(['project.i1']);
    expect(result.skipped.map((s) => [s.address, s.cause])).toEqual([
      ['project.i2', 'interrupted'],
      ['project.i3', 'interrupted'],
    ]);
    expect(h.state.data.resources['project.i1']?.id).toBeTruthy();
    expect(h.state.data.journal).toEqual([]);
    const names = (await h.client.listAll('listProjects', {})).map((p) => p.name);
    expect(names.filter((n) => n.startsWith('i'))).toEqual(['i1']);
  });
});
