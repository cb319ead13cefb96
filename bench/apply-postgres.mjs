// Apply with the state in PostgreSQL against the same apply with the local state file, side by side in one run:
// 500 and 2,000 resources (projects, credentials, gateways with two tokens each), 20 ms latency per request,
// parallelism 32. Prints wall times, their ratio, and the bytes each recorded write sent to the database
// (from the state's `versions` rows, per save and per entry: a save may group several writes' entries). A write
// costs what it changed, so bytes per entry must not grow with the state.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from '../dist/api/index.js';
import { applyPlan, stateKeyRing } from '../dist/applier/index.js';
import { resolveSecret } from '../dist/config/index.js';
import { loadConfiguration } from '../dist/providers/index.js';
import { startEmulator, fixtures } from '../dist/emulator/index.js';
import { makePlan } from '../dist/planner/index.js';
import { openState } from '../dist/state/index.js';
import { startPostgres } from './postgres-server.js';
import { benchConfig } from './lib/bench-config.mjs';

const LATENCY_MS = 20;
const PARALLELISM = 32;
const SIZES = (process.env.CPLANE_BENCH_SIZES ?? '500,2000').split(',').map(Number);
const account = fixtures.accounts[1].id;
const env = { CPLANE_STATE_KEY: Buffer.alloc(32, 5).toString('base64'), OPENAI_API_KEY: 'sk-bench-openai-key-0000' };

async function run(resources, statePath) {
  const emulator = await startEmulator({ latencyMs: LATENCY_MS });
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-'));
  writeFileSync(join(dir, 'main.yaml'), benchConfig(resources / 5));
  const { desired, diagnostics } = await loadConfiguration(dir, { env, cwd: dir, account });
  if (!desired) throw new Error(diagnostics.map((d) => d.summary).join('\n'));
  const state = await openState({ configDir: dir, account, env, command: 'bench', lock: true, ...(statePath ? { statePath } : {}) });
  const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account, concurrency: PARALLELISM });
  try {
    const plan = await makePlan({ desired, state, client, account, mode: 'normal', targets: [], parallelism: PARALLELISM, env });
    const started = performance.now();
    const result = await applyPlan({
      plan,
      state,
      client,
      parallelism: PARALLELISM,
      keyRing: stateKeyRing(state, (s) => resolveSecret(s, env)),
    });
    const wallMs = performance.now() - started;
    if (result.failed.length > 0) throw new Error(`${result.failed.length} steps failed: ${result.failed[0].reason}`);
    return { wallMs, serial: state.data.serial };
  } finally {
    await state.close();
    await client.close();
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function writeSizes(url, schema) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS saves, coalesce(sum(changes), 0)::int AS changes, coalesce(sum(bytes), 0)::int AS bytes FROM ${schema}.versions WHERE serial > 0`,
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

const server = await startPostgres();
try {
  console.log(`apply at parallelism ${PARALLELISM}, ${LATENCY_MS} ms latency per request: local state file vs PostgreSQL`);
  console.log('resources   local file   postgres   ratio   saves   entries written   bytes per entry   bytes per save');
  for (const resources of SIZES) {
    const schema = `bench_${resources}_${process.pid}`;
    const url = `${server.url}${server.url.includes('?') ? '&' : '?'}schema=${schema}`;
    const local = await run(resources);
    const remote = await run(resources, url);
    const sizes = await writeSizes(server.url, schema);
    console.log(
      `${String(resources).padStart(9)}  ${(local.wallMs / 1000).toFixed(2).padStart(9)} s  ${(remote.wallMs / 1000).toFixed(2).padStart(7)} s  ${(remote.wallMs / local.wallMs).toFixed(2).padStart(5)}×  ${String(sizes.saves).padStart(5)}   ${String(sizes.changes).padStart(15)}   ${(sizes.bytes / Math.max(1, sizes.changes)).toFixed(0).padStart(15)}   ${(sizes.bytes / Math.max(1, sizes.saves)).toFixed(0).padStart(14)}`,
    );
  }
} finally {
  await server.stop();
}
