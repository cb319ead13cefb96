// Ctrl-C during apply: the write in flight finishes and is saved, nothing new starts, exit 130; the next run finishes the job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveInventory, world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world({ latencyMs: 150 });
});
afterAll(async () => w.close());

const config = `version: 1
projects:
${['one', 'two', 'three'].map((n) => `  ${n}:\n    name: ${n}\n    description: project ${n}\n`).join('')}`;

describe('SIGINT during apply', () => {
  it('stops starting writes, records the one in flight, exits 130, and a re-run completes', async () => {
    const seeded = await liveInventory(w.client);
    w.config(config);
    // Ctrl-C once the first write is on the wire: the emulator has its request and answers 150 ms later. (A step
    // starts by preparing its write, and a second step prepares while the first is in flight: neither is sent yet.)
    let watching = false;
    const run = await w.cli(['apply', w.dir, '--auto-approve', '--parallelism', '1'], {}, (soFar, child) => {
      if (watching || !soFar.includes('create started')) return;
      watching = true;
      const before = w.emulator.stats().requests;
      const poll = setInterval(() => {
        if (w.emulator.stats().requests === before) return;
        clearInterval(poll);
        child.kill('SIGINT');
      }, 2);
    });
    expect(run.code).toBe(130);
    expect(run.stdout).toContain('apply: interrupted: no new writes start; waiting for the writes in flight to finish');
    const first = /apply: project\.(\w+): create started/.exec(run.stdout)![1]!;
    const others = ['one', 'two', 'three'].filter((n) => n !== first);
    expect(run.stdout).toMatch(new RegExp(`apply: project\\.${first}: created id=`));
    for (const n of others) expect(run.stdout).toContain(`apply: project.${n}: create not started (interrupted)`);
    expect(run.stdout).toContain('Apply interrupted: 1 done, 0 failed, 2 skipped');
    expect((await liveInventory(w.client)).projects).toEqual([...seeded.projects, first].sort());

    // The latency made the window for the interrupt; the re-run needs none.
    w.emulator.setLatency(0);
    const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(rerun.code).toBe(0);
    // The write prepared but never sent left no pending entry behind.
    expect(rerun.stdout).not.toContain('Pending writes an earlier apply left unconfirmed');
    expect(rerun.stdout).toContain('Apply complete: 2 done');
    expect((await liveInventory(w.client)).projects).toEqual([...seeded.projects, 'one', 'three', 'two'].sort());
  });
});
