// Apply of 500 resources (100 projects, 100 credentials, 100 gateways, 200 tokens; dependency depth 3) against the
// emulator with 20 ms latency per request, at parallelism 1, 10 and 32: API requests, wall time, and the ratio to the
// lower bound max(depth, ceil(writes / parallelism)) x latency. Only the apply is timed (not the refresh of the plan).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { createClient } from '../dist/api/index.js';
import { applyPlan } from '../dist/applier/index.js';
import { loadConfig, resolveSecret } from '../dist/config/index.js';
import { startEmulator, fixtures } from '../dist/emulator/index.js';
import { makePlan } from '../dist/planner/index.js';
import { openState } from '../dist/state/index.js';

const LATENCY_MS = 20;
const GROUPS = 100;
const DEPTH = 3;
const account = fixtures.accounts[1].id;
const env = { CPLANE_STATE_KEY: Buffer.alloc(32, 5).toString('base64'), OPENAI_API_KEY: 'sk-bench-openai-key-0000' };

function config() {
  const lines = ['version: 1', 'projects:'];
  for (let i = 0; i < GROUPS; i++) lines.push(`  p${i}:`, `    name: bench-p${i}`, `    description: bench`);
  lines.push('credentials:');
  for (let i = 0; i < GROUPS; i++) lines.push(`  c${i}:`, '    provider: openai', `    label: bench-c${i}`, '    secret: { env: OPENAI_API_KEY }');
  lines.push('gateways:');
  for (let i = 0; i < GROUPS; i++) {
    lines.push(`  g${i}:`, `    project: p${i}`, `    name: bench-g${i}`, `    slug: bench-g${i}`, '    defaultProvider: openai', '    defaultModel: gpt-4o-mini', `    credentials: [c${i}]`);
    lines.push('    tokens:', '      a: { scopes: [run] }', '      b: { scopes: [read_logs] }');
  }
  return `${lines.join('\n')}\n`;
}

async function run(parallelism) {
  const emulator = await startEmulator({ latencyMs: LATENCY_MS });
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-'));
  writeFileSync(join(dir, 'main.yaml'), config());
  const { desired, diagnostics } = await loadConfig(dir, { env, cwd: dir, account });
  if (!desired) throw new Error(diagnostics.map((d) => d.summary).join('\n'));
  const state = await openState({ configDir: dir, account, env, command: 'bench', lock: true });
  const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account, concurrency: parallelism });
  try {
    const plan = await makePlan({ desired, state, client, account, mode: 'normal', targets: [], parallelism, env });
    const writes = plan.steps.reduce((n, s) => n + s.writes.length, 0);
    emulator.resetStats();
    const started = performance.now();
    const result = await applyPlan({ plan, state, client, parallelism, resolveSecret: (s) => resolveSecret(s, env) });
    const wallMs = performance.now() - started;
    if (result.failed.length > 0) throw new Error(`${result.failed.length} steps failed: ${result.failed[0].reason}`);
    const lowerBoundMs = Math.max(DEPTH, Math.ceil(writes / parallelism)) * LATENCY_MS;
    return { parallelism, steps: result.done.length, writes, requests: emulator.stats().requests, wallMs, lowerBoundMs };
  } finally {
    await state.close();
    await client.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`apply of ${GROUPS * 5} resources, ${LATENCY_MS} ms latency per request`);
console.log('parallelism  steps  requests   wall time   lower bound   ratio');
for (const parallelism of [1, 10, 32]) {
  const r = await run(parallelism);
  console.log(
    `${String(r.parallelism).padStart(11)}  ${String(r.steps).padStart(5)}  ${String(r.requests).padStart(8)}  ${(r.wallMs / 1000).toFixed(2).padStart(9)} s  ${(r.lowerBoundMs / 1000).toFixed(2).padStart(10)} s  ${(r.wallMs / r.lowerBoundMs).toFixed(2).padStart(6)}`,
  );
}
