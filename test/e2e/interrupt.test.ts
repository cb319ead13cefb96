// Ctrl-C during apply: the write in flight finishes and is saved, nothing new starts, exit 130; the next run finishes the job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileProxy, liveInventory, world, type World } from './helpers.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(async () => w.close());

const config = `version: 1
projects:
${['one', 'two', 'three'].map((n) => `  ${n}:\n    name: ${n}\n    description: project ${n}\n`).join('')}`;

describe('SIGINT during apply', () => {
  it('stops starting writes, records the one in flight, exits 130, and a re-run completes', async () => {
    const seeded = await liveInventory(w.client);
    w.config(config);
    // Ctrl-C once the first write is on the wire: a proxy holds it until the apply says it was interrupted, so the
    // window is made of events, not of a latency the machine's load could outrun. (A step starts by preparing its
    // write, and a second step prepares while the first is in flight: neither is sent yet.)
    let writeArrived!: () => void;
    const firstWrite = new Promise<void>((resolve) => (writeArrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let writes = 0;
    const gate = await hostileProxy(w.emulator.url, (req) => {
      if (req.method === 'GET' || ++writes > 1) return false;
      writeArrived();
      return released;
    });
    let interrupted = false;
    const run = await w
      .cli(['apply', w.dir, '--auto-approve', '--parallelism', '1'], { CPLANE_BASE_URL: gate.url }, (soFar, child) => {
        if (soFar.includes('apply: interrupted')) release();
        if (interrupted || !soFar.includes('create started')) return;
        interrupted = true;
        void firstWrite.then(() => child.kill('SIGINT'));
      })
      .finally(() => gate.close());
    expect(run.code).toBe(130);
    expect(run.stdout).toContain('apply: interrupted: no new writes start; waiting for the writes in flight to finish');
    const first = /apply: project\.(\w+): create started/.exec(run.stdout)![1]!;
    const others = ['one', 'two', 'three'].filter((n) => n !== first);
    expect(run.stdout).toMatch(new RegExp(`apply: project\\.${first}: created id=`));
    for (const n of others) expect(run.stdout).toContain(`apply: project.${n}: create not started (interrupted)`);
    expect(run.stdout).toContain('Apply interrupted: 1 done, 0 failed, 2 skipped');
    expect((await liveInventory(w.client)).projects).toEqual([...seeded.projects, first].sort());

    // The re-run goes to the emulator directly.
    const rerun = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(rerun.code).toBe(0);
    // The write prepared but never sent left no pending entry behind.
    expect(rerun.stdout).not.toContain('Pending writes an earlier apply left unconfirmed');
    expect(rerun.stdout).toContain('Apply complete: 2 done');
    expect((await liveInventory(w.client)).projects).toEqual([...seeded.projects, 'one', 'three', 'two'].sort());
  });
});
