// The state at 10,000 and 50,000 addresses, measured side by side: load (open with the lock: read, hash, parse,
// replay, key check), one save of the whole state (the fold of the change log into state.json at close), and one
// recorded write (an update of one entry: a log append with fdatasync). A recorded write should cost the same at
// both sizes; the ratio 50k / 10k is printed for each figure (for the write also of its CPU time, which the
// fdatasync's variance on a busy disk does not blur).
// Run after `npm run build`: node bench/state.mjs
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openState } from '../dist/state/index.js';

const SIZES = [10_000, 50_000];
const RUNS = 5;
const WRITES = 50;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A state of `addresses` records in a fresh folder. */
async function seed(addresses) {
  const root = mkdtempSync(join(tmpdir(), 'cplane-bench-state-'));
  const env = { XDG_CONFIG_HOME: join(root, 'config-home'), CPLANE_STATE_KEY: randomBytes(32).toString('base64') };
  const options = { configDir: join(root, 'repo'), account: 'acc_bench', env, command: 'bench', lock: true };
  const store = await openState(options);
  const now = new Date().toISOString();
  await store.update((draft) => {
    for (let i = 0; i < addresses; i++) {
      const address = `record.app-${i}`;
      draft.resources[address] = {
        kind: 'record',
        id: `rec_${i.toString().padStart(8, '0')}`,
        parents: { projectId: 'prj_00000001' },
        inputs: { project: 'app', name: `app-${i}`, tags: ['bench', 'state'], format: 'text' },
        fingerprints: { value: store.crypto.fingerprint(address, 'value', `secret-${i}`) },
        createdAt: now,
        updatedAt: now,
      };
    }
  });
  await store.close();
  return { addresses, root, options, bytes: statSync(store.path).size, loads: [], writes: [], writeCpu: [], saves: [] };
}

/** One round on a state: open, WRITES recorded writes of one entry each, close (which folds). */
async function round(s, run) {
  let started = performance.now();
  const store = await openState(s.options);
  s.loads.push(performance.now() - started);
  const cpu = process.cpuUsage();
  for (let w = 0; w < WRITES; w++) {
    started = performance.now();
    await store.update((draft) => {
      draft.resources[`record.app-${w}`].inputs.tags = [`run-${run}`, `write-${w}`];
    });
    s.writes.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  s.writeCpu.push((used.user + used.system) / 1000 / WRITES);
  started = performance.now();
  await store.close();
  s.saves.push(performance.now() - started);
}

const states = [];
for (const size of SIZES) states.push(await seed(size));
// Rounds alternate between the sizes, so a busy moment of the machine falls on both alike.
try {
  for (let run = 0; run < RUNS; run++) for (const s of states) await round(s, run);
} finally {
  for (const s of states) rmSync(s.root, { recursive: true, force: true });
}
const results = states.map((s) => ({
  addresses: s.addresses,
  bytes: s.bytes,
  load: median(s.loads),
  save: median(s.saves),
  write: median(s.writes),
  writeCpu: median(s.writeCpu),
}));
console.log(`state load, save and one recorded write; medians of ${RUNS} loads and saves and ${RUNS * WRITES} writes`);
console.log('addresses      size      load      save (fold)   one recorded write (wall, CPU)');
for (const r of results) {
  console.log(
    `${String(r.addresses).padStart(9)}  ${(r.bytes / 1e6).toFixed(1).padStart(5)} MB  ${r.load.toFixed(1).padStart(6)} ms  ${r.save.toFixed(1).padStart(9)} ms  ${r.write.toFixed(2).padStart(12)} ms, ${r.writeCpu.toFixed(2)} ms CPU`,
  );
}
const [small, large] = results;
console.log(
  `ratio 50k / 10k: load ${(large.load / small.load).toFixed(2)}×, save ${(large.save / small.save).toFixed(2)}×, one recorded write ${(large.write / small.write).toFixed(2)}× wall (fdatasync varies a lot on a busy disk), ${(large.writeCpu / small.writeCpu).toFixed(2)}× CPU (goal: about 1)`,
);
