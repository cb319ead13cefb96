// Load and save time of a state with 10,000 addresses (goal: under 200 ms each).
// Run after `npm run build`: node bench/state.mjs
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { openState } from '../dist/state/index.js';

const ADDRESSES = 10_000;
const RUNS = 5;
const root = mkdtempSync(join(tmpdir(), 'cplane-bench-state-'));
const env = { XDG_CONFIG_HOME: join(root, 'config-home'), CPLANE_STATE_KEY: randomBytes(32).toString('base64') };
const options = { configDir: join(root, 'repo'), account: 'acc_bench', env, command: 'bench', lock: true };

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

try {
  const seed = await openState(options);
  const now = new Date().toISOString();
  await seed.update((draft) => {
    for (let i = 0; i < ADDRESSES; i++) {
      const address = `record.app-${i}`;
      draft.resources[address] = {
        kind: 'record',
        id: `rec_${i.toString().padStart(8, '0')}`,
        parents: { projectId: 'prj_00000001' },
        inputs: { project: 'app', name: `app-${i}`, tags: ['bench', 'state'], format: 'text' },
        fingerprints: { value: seed.fingerprint(address, 'value', `secret-${i}`) },
        createdAt: now,
        updatedAt: now,
      };
    }
  });
  await seed.close();
  const bytes = statSync(seed.path).size;

  const loads = [];
  const saves = [];
  for (let run = 0; run < RUNS; run++) {
    let started = performance.now();
    const store = await openState(options);
    loads.push(performance.now() - started);
    started = performance.now();
    await store.update((draft) => {
      draft.resources['record.app-0'].inputs.tags = [`run-${run}`];
    });
    saves.push(performance.now() - started);
    await store.close();
  }
  console.log(`state with ${ADDRESSES} addresses (${(bytes / 1e6).toFixed(1)} MB), median of ${RUNS} runs:`);
  console.log(`  load (open with lock: read, parse, schema check, key check): ${median(loads).toFixed(1)} ms`);
  console.log(`  save (update: copy, schema check, write, fsync, rename):     ${median(saves).toFixed(1)} ms`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
