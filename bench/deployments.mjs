/* global performance */
// bench/deployments: `cplane plan --all` over many deployments, each in its own emulator account, at 20 ms of
// latency per request. Shapes: 50 deployments of 200 resources, and 200 deployments of 20.
// Measured in the same run, side by side: each deployment's plan alone (`plan --deployment NAME`, one CLI run
// after another: their sum is the sequential time), and `plan --all`. Goal: the wall time of `plan --all` is at most
// 1.5x the larger of (the slowest single plan) and (the CPU time of all the single plans / the machine's cores).
// Each CLI child reports its own CPU time and peak RSS (bench/lib/cpu-at-exit.cjs). The configuration is the apply
// benches' (a project, a credential and a gateway with two tokens per five resources) planned against empty
// accounts, so every plan creates everything: the refresh reads every list once per account.
// `node bench/deployments.mjs 10x40` runs one smaller shape (DEPLOYMENTSxRESOURCES).
// Then the CI matrix (docs/ci.md): 400 deployments of 20 resources planned in 4 shards (`plan --all --shard I/4 --out
// DIR`, one CLI run after another) against one `plan --all --out DIR`, and `plan --merge` of the four folders. Goals:
// the shards' summed CPU at most 1.2x the one run's (what sharding costs: four start-ups and four configuration
// loads), and the merge (a CLI run: reads, checks the MAC of and renders 400 plans) under 1 s of wall time.
// `node bench/deployments.mjs shards` runs only that part; `shards 40x20` a smaller one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extraAccount, fixtures, startEmulator } from '../dist/emulator/index.js';
import { benchConfig } from './lib/bench-config.mjs';

const LATENCY_MS = 20;
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
// The shards are CI jobs: each starts the CLI as a user's job does, through bin/cplane.js (the bundle and its code cache).
const bin = fileURLToPath(new URL('../bin/cplane.js', import.meta.url));
const preload = fileURLToPath(new URL('./lib/cpu-at-exit.cjs', import.meta.url));
const onlyShards = process.argv[2] === 'shards';
const asked = process.argv[onlyShards ? 3 : 2]?.match(/^(\d+)x(\d+)$/);
const askedShape = asked ? { deployments: Number(asked[1]), resources: Number(asked[2]) } : undefined;
const shapes = onlyShards
  ? []
  : askedShape
    ? [askedShape]
    : [
        { deployments: 50, resources: 200 },
        { deployments: 200, resources: 20 },
      ];
const SHARDS = 4;
const ROUNDS = 3;
const shardShape = onlyShards && askedShape ? askedShape : { deployments: 400, resources: 20 };

function configuration(shape) {
  const lines = ['deployments:'];
  for (let d = 1; d <= shape.deployments; d++) lines.push(`  d${d}: { account: ${extraAccount(d).id} }`);
  return `${benchConfig(shape.resources / 5)}${lines.join('\n')}\n`;
}

/** Runs the CLI; resolves with its wall time and what it reported of its own CPU and memory. */
function run(args, env, cwd, program = cli) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [program, ...args], {
      cwd,
      env: { ...env, NODE_OPTIONS: `--require ${preload}` },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let usage = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdio[3].on('data', (chunk) => (usage += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0 && code !== 2) return reject(new Error(`cplane ${args.join(' ')} exited ${code}: ${stderr}`));
      resolve({ wallMs, ...JSON.parse(usage.trim().split('\n').at(-1)) });
    });
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const cores = availableParallelism();
let failed = false;
const envFor = (dir, emulator) => ({
  PATH: process.env.PATH,
  HOME: dir,
  CPLANE_BASE_URL: emulator.url,
  CPLANE_TOKEN: fixtures.tokens.admin,
  CPLANE_STATE_KEY: Buffer.alloc(32, 5).toString('base64'),
  OPENAI_API_KEY: 'sk-bench',
  NO_COLOR: '1',
  CI: '1',
});
for (const shape of shapes) {
  const emulator = await startEmulator({ accounts: shape.deployments, latencyMs: LATENCY_MS });
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-deployments-'));
  try {
    writeFileSync(join(dir, 'main.yaml'), configuration(shape));
    const env = envFor(dir, emulator);
    const singles = [];
    for (let d = 1; d <= shape.deployments; d++)
      singles.push(await run(['plan', '--deployment', `d${d}`, '--detailed-exitcode'], env, dir));
    const all = await run(['plan', '--all', '--detailed-exitcode'], env, dir);
    const sequentialMs = singles.reduce((sum, r) => sum + r.wallMs, 0);
    const slowestMs = Math.max(...singles.map((r) => r.wallMs));
    const cpuMs = singles.reduce((sum, r) => sum + r.cpuMs, 0);
    const boundMs = Math.max(slowestMs, cpuMs / cores);
    const ratio = all.wallMs / boundMs;
    console.log(`${shape.deployments} deployments x ${shape.resources} resources, ${LATENCY_MS} ms latency, ${cores} cores:`);
    console.log(`  plan --all:            ${s(all.wallMs)} wall, ${s(all.cpuMs)} CPU, peak RSS ${all.maxRssMb.toFixed(0)} MB`);
    console.log(`  one after another:     ${s(sequentialMs)} (the ${shape.deployments} single plans' wall times)`);
    console.log(`  slowest single plan:   ${s(slowestMs)};  CPU of all single plans / cores: ${s(cpuMs)} / ${cores} = ${s(cpuMs / cores)}`);
    console.log(`  ratio to the bound:    ${ratio.toFixed(2)}x (goal <= 1.5x)  ${ratio <= 1.5 ? 'ok' : 'OVER'}`);
    if (ratio > 1.5) failed = true;
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The CI matrix: the fleet planned by SHARDS jobs, then merged into one comment.
{
  const shape = shardShape;
  const emulator = await startEmulator({ accounts: shape.deployments, latencyMs: LATENCY_MS });
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-shards-'));
  try {
    writeFileSync(join(dir, 'main.yaml'), configuration(shape));
    const env = envFor(dir, emulator);
    // The one process and the shards alternate, ROUNDS times: a run's CPU varies by about 10 % with the garbage
    // collector's timing (the one process holds 400 plans), so one pair can land either side of the goal. The
    // ratio of the medians is the figure; every round's is printed beside it.
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const one = await run(['plan', '--all', '--out', `all-${round}`, '--detailed-exitcode'], env, dir, bin);
      const shards = [];
      for (let i = 1; i <= SHARDS; i++)
        shards.push(
          await run(
            [
              'plan',
              '--all',
              '--shard',
              `${i}/${SHARDS}`,
              '--run',
              `bench-${round}`,
              '--out',
              `shard-${round}-${i}`,
              '--detailed-exitcode',
            ],
            env,
            dir,
            bin,
          ),
        );
      rounds.push({ one, shards, shardCpuMs: shards.reduce((sum, r) => sum + r.cpuMs, 0) });
    }
    const merge = await run(
      ['plan', '--merge', ...Array.from({ length: SHARDS }, (_, i) => `shard-0-${i + 1}`), '--markdown', '--detailed-exitcode'],
      env,
      dir,
      bin,
    );
    const oneCpuMs = median(rounds.map((r) => r.one.cpuMs));
    const shardCpuMs = median(rounds.map((r) => r.shardCpuMs));
    const ratio = shardCpuMs / oneCpuMs;
    console.log(
      `${shape.deployments} deployments x ${shape.resources} resources in ${SHARDS} shards, ${LATENCY_MS} ms latency, ${cores} cores, ${ROUNDS} rounds alternating:`,
    );
    for (const [i, { one, shards, shardCpuMs: sum }] of rounds.entries()) {
      console.log(
        `  round ${i + 1}: one process ${s(one.wallMs)} wall, ${s(one.cpuMs)} CPU, peak RSS ${one.maxRssMb.toFixed(0)} MB; ${SHARDS} shards ${shards.map((r) => s(r.cpuMs)).join(' + ')} = ${s(sum)} CPU (${(sum / one.cpuMs).toFixed(2)}x)`,
      );
    }
    console.log(
      `  shards' CPU / one process's, medians: ${s(shardCpuMs)} / ${s(oneCpuMs)} = ${ratio.toFixed(2)}x (goal <= 1.2x)  ${ratio <= 1.2 ? 'ok' : 'OVER'}`,
    );
    console.log(
      `  plan --merge of the ${SHARDS} folders:   ${s(merge.wallMs)} wall (goal < 1 s), ${s(merge.cpuMs)} CPU, peak RSS ${merge.maxRssMb.toFixed(0)} MB  ${merge.wallMs < 1000 ? 'ok' : 'OVER'}`,
    );
    if (ratio > 1.2 || merge.wallMs >= 1000) failed = true;
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exitCode = failed ? 1 : 0;
