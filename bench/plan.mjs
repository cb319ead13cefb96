// bench/plan: refresh and plan 2,000 and 10,000 managed resources against the emulator with 20 ms of latency per request.
// Goals: at most 1.5x the lower bound at both sizes, and a peak RSS under 200 MB at 10,000.
// Prints the requests sent, the wall time and the ratio to the lower bound (requests / parallelism x latency),
// and the requests per operation, which grow with list pages and managed gateways, not with resources.
/* global structuredClone, performance */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../dist/api/index.js';
import { loadConfig } from '../dist/config/index.js';
import { fixtures } from '../dist/emulator/fixtures.js';
import { makePlan } from '../dist/planner/index.js';
import { openState } from '../dist/state/index.js';

const LATENCY_MS = 20;
const PARALLELISM = 10;
/** Two sizes with the same gateways: the requests of the larger one grow only by record-list pages. */
const shapes = [
  { projects: 10, recordsPerProject: 150, credentials: 20, gateways: 20, tokens: 430 },
  { projects: 20, recordsPerProject: 450, credentials: 20, gateways: 20, tokens: 940 },
];
const account = fixtures.accounts[1].id;
const env = { CPLANE_STATE_KEY: Buffer.alloc(32, 5).toString('base64'), BENCH_KEY: 'sk-bench-secret' };

function configYaml(shape) {
  const lines = ['version: 1', `account: ${account}`, 'projects:'];
  for (let p = 0; p < shape.projects; p++) {
    lines.push(`  p${p}:`, '    records:');
    for (let r = 0; r < shape.recordsPerProject; r++) lines.push(`      r${r}: { tags: [bench] }`);
  }
  lines.push('credentials:');
  for (let c = 0; c < shape.credentials; c++) lines.push(`  c${c}: { provider: openai, secret: { env: BENCH_KEY } }`);
  lines.push('gateways:');
  for (let g = 0; g < shape.gateways; g++) {
    lines.push(`  g${g}:`, `    project: p${g % shape.projects}`, '    defaultProvider: openai', '    defaultModel: gpt-4o-mini', `    credentials: [c${g}]`);
    lines.push('    otelExport: { enabled: true, endpoint: https://otel.example.com }', '    tokens:');
    for (let t = g; t < shape.tokens; t += shape.gateways) lines.push(`      t${t}: { scopes: [run] }`);
  }
  return `${lines.join('\n')}\n`;
}

/** Creates the live objects straight through the client and records them in state in one save (an apply of 2,000 steps is not what is measured). */
async function arrange(client, state, desired) {
  const providerId = fixtures.providers[0].id;
  const byAddress = new Map(desired.resources.map((r) => [r.address, r]));
  const ids = new Map();
  const parents = new Map();
  const of = (kind) => desired.resources.filter((r) => r.kind === kind);
  const all = (items, fn) => Promise.all(items.map(fn));
  await all(of('project'), async (r) => ids.set(r.address, (await client.call('createProject', { body: { accountId: account, name: r.attributes.name, description: '' } })).project_id));
  await all(of('credential'), async (r) =>
    ids.set(r.address, (await client.call('createCredential', { body: { providerId, label: r.attributes.label, secret: env.BENCH_KEY } })).credential_id),
  );
  await all(of('record'), async (r) => {
    const projectId = ids.get(`project.${r.attributes.project}`);
    ids.set(r.address, (await client.call('createRecord', { body: { projectId, name: r.attributes.name, tags: r.attributes.tags } })).record_id);
    parents.set(r.address, { projectId });
  });
  await all(of('gateway'), async (r) => {
    const a = r.attributes;
    const projectId = ids.get(`project.${a.project}`);
    const body = { projectId, name: a.name, slug: a.slug, defaultProviderId: providerId, defaultModel: a.defaultModel, credentialIds: a.credentials.map((c) => ids.get(`credential.${c}`)) };
    ids.set(r.address, (await client.call('createGateway', { body })).gateway_id);
    parents.set(r.address, { projectId });
  });
  await all(of('otel_export'), async (r) => {
    const gatewayId = ids.get(`gateway.${r.attributes.gateway}`);
    const { enabled, endpoint, exportMetrics, exportTraces } = r.attributes;
    await client.call('updateOtelExport', { path: { id: gatewayId }, body: { enabled, endpoint, exportMetrics, exportTraces } });
    ids.set(r.address, gatewayId);
    parents.set(r.address, { gatewayId });
  });
  await all(of('gateway_token'), async (r) => {
    const a = r.attributes;
    const gatewayId = ids.get(`gateway.${a.gateway}`);
    const body = { name: a.name, scopes: a.scopes, expiresInDays: a.expiresInDays, allowedModels: a.allowedModels, rateLimitPerMin: a.rateLimitPerMin };
    ids.set(r.address, (await client.call('createGatewayToken', { path: { id: gatewayId }, body })).token_id);
    parents.set(r.address, { gatewayId });
  });
  const now = new Date().toISOString();
  await state.update((draft) => {
    for (const [address, id] of ids) {
      const r = byAddress.get(address);
      const fingerprints = r.kind === 'credential' ? { secret: state.crypto.fingerprint(address, 'secret', env.BENCH_KEY) } : {};
      draft.resources[address] = { kind: r.kind, id, ...(parents.has(address) ? { parents: parents.get(address) } : {}), inputs: structuredClone(r.attributes), fingerprints, createdAt: now, updatedAt: now };
    }
  });
}

/**
 * The emulator runs in its own process, as a real API would: in this process its work would be counted as
 * cplane's. It takes one command per line on stdin (`latency N`, `reset`, `stats`) and answers on stdout.
 */
async function startEmulatorProcess() {
  const script = `
    import { createInterface } from 'node:readline';
    const { startEmulator } = await import(${JSON.stringify(new URL('../dist/emulator/index.js', import.meta.url).href)});
    const emulator = await startEmulator();
    console.log(emulator.url);
    for await (const line of createInterface({ input: process.stdin })) {
      const [command, value] = line.split(' ');
      if (command === 'latency') emulator.setLatency(Number(value));
      if (command === 'reset') emulator.resetStats();
      console.log(command === 'stats' ? JSON.stringify(emulator.stats()) : 'ok');
    }
    await emulator.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => (await lines.next()).value;
  const url = await next();
  const ask = async (command) => {
    child.stdin.write(`${command}\n`);
    return next();
  };
  return {
    url,
    setLatency: (ms) => ask(`latency ${ms}`),
    resetStats: () => ask('reset'),
    stats: async () => JSON.parse(await ask('stats')),
    close: async () => {
      child.stdin.end();
      await once(child, 'exit');
    },
  };
}

async function measure(shape) {
  const emulator = await startEmulatorProcess();
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-plan-'));
  try {
    writeFileSync(join(dir, 'main.yaml'), configYaml(shape));
    const { desired, diagnostics } = await loadConfig(dir, { env, cwd: dir });
    if (!desired) throw new Error(`bench configuration is invalid: ${JSON.stringify(diagnostics.slice(0, 3))}`);
    const state = await openState({ configDir: dir, account, env, command: 'bench', lock: true });
    const setup = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account, concurrency: 32 });
    await arrange(setup, state, desired);
    await setup.close();

    await emulator.setLatency(LATENCY_MS);
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account, concurrency: PARALLELISM });
    const runs = [];
    for (let i = 0; i < 10; i++) {
      await emulator.resetStats();
      const started = performance.now();
      const plan = await makePlan({ desired, state, client, account, parallelism: PARALLELISM, env });
      const wallMs = performance.now() - started;
      if (plan.steps.length > 0) throw new Error(`expected no changes, got ${plan.steps.length} steps (first: ${plan.steps[0].action} ${plan.steps[0].address})`);
      runs.push({ wallMs, stats: await emulator.stats() });
    }
    await client.close();
    await state.close();

    const times = runs.map((r) => r.wallMs).sort((a, b) => a - b);
    const best = times[0];
    const median = times[Math.floor(times.length / 2)];
    const { requests, byOperation } = runs[0].stats;
    const lowerBoundMs = (requests / PARALLELISM) * LATENCY_MS;
    const operations = Object.entries(byOperation).filter(([, n]) => n > 0).map(([op, n]) => `${op} ${n}`).join(', ');
    const records = shape.projects * shape.recordsPerProject;
    console.log(`plan of ${desired.resources.length} resources (${shape.projects} projects, ${records} records, ${shape.credentials} credentials, ${shape.gateways} gateways with OTel export, ${shape.tokens} tokens)`);
    console.log(`  requests sent: ${requests} (${operations})`);
    console.log(`  wall time: best ${best.toFixed(0)} ms, median ${median.toFixed(0)} ms of ${runs.length} runs`);
    console.log(`  lower bound: ${requests} / ${PARALLELISM} x ${LATENCY_MS} ms = ${lowerBoundMs.toFixed(0)} ms; ratio ${(best / lowerBoundMs).toFixed(2)}x best, ${(median / lowerBoundMs).toFixed(2)}x median (goal <= 1.5x)`);
    // The bench process also arranged the objects, so this is an upper bound of what plan needs.
    console.log(`  peak RSS of this process so far: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (goal at 10,000: <= 200 MB)`);
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`latency ${LATENCY_MS} ms per request, parallelism ${PARALLELISM}; the emulator runs in its own process`);
for (const shape of shapes) await measure(shape);
