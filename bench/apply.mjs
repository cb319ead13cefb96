// Apply against the emulator with 20 ms latency per request at parallelism 32, at 500, 2,000, 10,000 and 20,000
// resources (projects, credentials, gateways and two tokens per gateway; dependency depth 3): wall time of the
// apply (the close, which folds the state, included; the plan's refresh not), its requests, the CLI's CPU seconds
// and peak RSS, and the time per write against the lower bound max(depth, ceil(writes / parallelism)) x latency.
// Time per write at each size is printed as a ratio to the one at 500 (linear apply: about 1). At 2,000 the same
// apply also runs with the state writes replaced by a no-op, for comparison.
// Sizes can be chosen: node bench/apply.mjs 500 2000 (default: all four; the large ones take minutes).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../dist/emulator/index.js';
import { benchConfig } from './lib/bench-config.mjs';
import { runApplyChild } from './lib/run-apply-child.mjs';

const LATENCY_MS = 20;
const PARALLELISM = 32;
const DEPTH = 3;
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);

async function run(resources, mode) {
  const emulator = await startEmulator({ latencyMs: LATENCY_MS });
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-apply-'));
  writeFileSync(join(dir, 'main.yaml'), benchConfig(resources / 5));
  try {
    const r = await runApplyChild(emulator, { dir, parallelism: PARALLELISM, mode });
    const lowerBoundMs = Math.max(DEPTH, Math.ceil(r.writes / PARALLELISM)) * LATENCY_MS;
    return { resources, mode, ...r, lowerBoundMs, perWriteMs: r.wallMs / r.writes };
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`apply at ${LATENCY_MS} ms latency per request, parallelism ${PARALLELISM}`);
console.log('resources  state   writes  requests   wall time  × bound   CPU s  peak RSS  ms/write  × ms/write at 500');
let base;
const runs = [];
for (const size of sizes.length > 0 ? sizes : [500, 2000, 10000, 20000]) {
  runs.push([size, 'real']);
  if (size === 2000) runs.push([size, 'noop']);
}
let realAt2000;
for (const [size, mode] of runs) {
  const r = await run(size, mode);
  if (size === 500 && mode === 'real') base = r.perWriteMs;
  if (size === 2000 && mode === 'real') realAt2000 = r;
  console.log(
    [
      String(r.resources).padStart(9),
      mode.padStart(5),
      String(r.writes).padStart(8),
      String(r.requests).padStart(9),
      `${(r.wallMs / 1000).toFixed(2)} s`.padStart(11),
      (r.wallMs / r.lowerBoundMs).toFixed(2).padStart(8),
      r.cpuS.toFixed(2).padStart(7),
      `${r.maxRssMB.toFixed(0)} MB`.padStart(9),
      r.perWriteMs.toFixed(3).padStart(9),
      base ? (r.perWriteMs / base).toFixed(2).padStart(18) : '',
    ].join('  '),
  );
  if (size === 2000 && mode === 'noop' && realAt2000)
    console.log(`  at 2,000: the real state writes take ${(realAt2000.wallMs / r.wallMs).toFixed(2)}× the no-op run`);
}
