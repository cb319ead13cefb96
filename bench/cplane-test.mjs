// bench/cplane-test: 100 runs in one `cplane test` against 10 `cplane plan` processes of the same folder (the
// quickstart) against a running emulator (`cplane emulator`, started beforehand), measured side by side.
// Goal: the 100 runs take less time than the 10 plans. Each of the 100 runs plans with its own value of the
// `env` variable, so every run loads the configuration again (no run reuses another's): the honest case.
// The two are measured in alternation, ROUNDS times; the figures are the medians and their ratio, with the
// CPU time of the processes (from /proc) beside the wall clock, which a busy machine stretches.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtures } from '../dist/emulator/fixtures.js';
import { startEmulatorProcess } from './lib/emulator-process.mjs';

const RUNS = 100;
const PLANS = 10;
const ROUNDS = 3;
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/cplane.js');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** CPU milliseconds (user + system) of the children this process has waited for, from /proc (Linux only). */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return NaN;
  }
}

/** Wall and CPU milliseconds of `count` runs of the CLI with `args`, one after another. */
function timed(args, options, count = 1) {
  const cpuBefore = childrenCpuMs();
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', ...options });
    if (result.status !== 0) throw new Error(`cplane ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
    if (args[0] === 'test' && !result.stdout.includes(`${RUNS} passed, 0 failed`))
      throw new Error(`cplane test did not pass every run:\n${result.stdout}`);
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, cpuMs: childrenCpuMs() - cpuBefore };
}

const emulator = await startEmulatorProcess();
const temp = mkdtempSync(join(tmpdir(), 'cplane-bench-test-'));
try {
  const dir = join(temp, 'quickstart');
  cpSync(join(root, 'examples/quickstart'), dir, { recursive: true });
  rmSync(join(dir, 'tests'), { recursive: true, force: true });
  mkdirSync(join(dir, 'tests'));
  const secrets = Object.fromEntries(
    readFileSync(join(dir, 'demo.env'), 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split('=')),
  );
  const runs = Array.from({ length: RUNS }, (_, i) =>
    [
      `  - name: plan ${i + 1}`,
      '    command: plan',
      `    variables: { env: r${i + 1} }`,
      `    expect: [plan.add == 8, 'steps["gateway.prod"].changes["slug"].after == "payments-r${i + 1}"']`,
    ].join('\n'),
  );
  writeFileSync(join(dir, 'tests', 'bench.cptest.yaml'), `env: ${JSON.stringify(secrets)}\nruns:\n${runs.join('\n')}\n`);

  const base = { PATH: process.env.PATH, HOME: temp, XDG_CONFIG_HOME: join(temp, 'config'), NO_COLOR: '1', CI: '1' };
  const planEnv = {
    ...base,
    ...secrets,
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: fixtures.accounts[1].id,
    CPLANE_STATE_KEY: Buffer.alloc(32, 3).toString('base64'),
  };
  // Warm the file system cache and the emulator once before measuring.
  timed(['plan', dir], { env: planEnv, cwd: temp });
  timed(['test', dir], { env: base, cwd: temp });

  const test = [];
  const plans = [];
  for (let round = 0; round < ROUNDS; round++) {
    test.push(timed(['test', dir], { env: base, cwd: temp }));
    plans.push(timed(['plan', dir], { env: planEnv, cwd: temp }, PLANS));
  }
  const wall = { test: median(test.map((t) => t.ms)), plans: median(plans.map((t) => t.ms)) };
  const cpu = { test: median(test.map((t) => t.cpuMs)), plans: median(plans.map((t) => t.cpuMs)) };
  const ratio = wall.test / wall.plans;
  console.log(
    `${RUNS} runs in one \`cplane test\`:         ${(wall.test / 1000).toFixed(2)} s wall, ${(cpu.test / 1000).toFixed(2)} s CPU (${(wall.test / RUNS).toFixed(1)} ms a run)`,
  );
  console.log(
    `${PLANS} \`cplane plan\` processes, one by one: ${(wall.plans / 1000).toFixed(2)} s wall, ${(cpu.plans / 1000).toFixed(2)} s CPU (${(wall.plans / PLANS).toFixed(1)} ms a plan)`,
  );
  console.log(
    `ratio (test / plans): ${ratio.toFixed(2)} wall, ${(cpu.test / cpu.plans).toFixed(2)} CPU  (goal < 1: ${ratio < 1 ? 'met' : 'NOT met'}; medians of ${ROUNDS} rounds)`,
  );
  process.exitCode = ratio < 1 ? 0 : 1;
} finally {
  emulator.close();
  rmSync(temp, { recursive: true, force: true });
}
