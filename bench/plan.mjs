// bench/plan: refresh and plan 2,000 and 10,000 managed resources against the emulator with 20 ms of latency per request.
// Goals: 1.5x the request floor at 2,000; at 10,020 1.25x written out and 1.3x from forEach, and a peak RSS under 150 MB.
// Prints the requests sent, the wall time and two ratios: to the latency bound (requests / parallelism x
// latency, which counts none of the server's own time) and to the request floor, the time the same
// requests take in the same run when sent with nothing else to do (the server's time included, cplane's
// excluded). Also the requests per operation, which grow with list pages and managed gateways, not with
// resources. The objects are arranged in this process; the timed plans run in a child process of their
// own (`--measure`). The peak RSS is that of one real `cplane plan` of the same folder, the CLI as a
// user runs it.
/* global structuredClone, performance */
import { spawn } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from '../dist/api/index.js';
import { loadConfiguration } from '../dist/providers/index.js';
import { fixtures } from '../dist/emulator/fixtures.js';
import { makePlan, modelChecks, spendTouched } from '../dist/planner/index.js';
import { baselineBuild } from './lib/baseline-build.mjs';
import { openState } from '../dist/state/index.js';

const LATENCY_MS = 20;
const PARALLELISM = 10;
/** Two sizes with the same gateways: the requests of the larger one grow only by record-list pages. */
const shapes = [
  { projects: 10, recordsPerProject: 150, credentials: 20, gateways: 20, tokens: 430 },
  { projects: 20, recordsPerProject: 450, credentials: 20, gateways: 20, tokens: 940 },
  // The same 10,000 resources as the instances of forEach templates (records nested in projects, tokens in gateways).
  { projects: 20, recordsPerProject: 450, credentials: 20, gateways: 20, tokens: 940, forEach: true },
];
const account = fixtures.accounts[1].id;
const env = { CPLANE_STATE_KEY: Buffer.alloc(32, 5).toString('base64'), BENCH_KEY: 'sk-bench-secret' };

function configYaml(shape) {
  return shape.forEach ? forEachYaml(shape) : writtenOutYaml(shape);
}

/** The objects of `writtenOutYaml` from five templates: projects, records in each, credentials, gateways, tokens in each. */
function forEachYaml(shape) {
  const range = (n, prefix = '') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const gateways = Object.fromEntries(
    range(shape.gateways).map((g) => {
      const tokens = [];
      for (let t = Number(g); t < shape.tokens; t += shape.gateways) tokens.push(`${t}`);
      return [g, { project: `p[${Number(g) % shape.projects}]`, credential: `c[${g}]`, tokens }];
    }),
  );
  return `${[
    'version: 1',
    `account: ${account}`,
    'variables:',
    `  projects: { type: list, default: ${JSON.stringify(range(shape.projects))} }`,
    `  records: { type: list, default: ${JSON.stringify(range(shape.recordsPerProject))} }`,
    `  credentials: { type: list, default: ${JSON.stringify(range(shape.credentials))} }`,
    `  gateways: { type: map, default: ${JSON.stringify(gateways)} }`,
    'projects:',
    '  p:',
    '    forEach: ${var.projects}',
    '    name: p${each.key}',
    '    records:',
    '      r:',
    '        forEach: ${var.records}',
    '        name: r${each.key}',
    '        tags: [bench]',
    'credentials:',
    '  c:',
    '    forEach: ${var.credentials}',
    '    label: c${each.key}',
    '    provider: openai',
    '    secret: { env: BENCH_KEY }',
    'gateways:',
    '  g:',
    '    forEach: ${var.gateways}',
    '    name: g${each.key}',
    '    slug: g${each.key}',
    '    project: ${each.value.project}',
    '    defaultProvider: openai',
    '    defaultModel: gpt-4o-mini',
    '    credentials:',
    '      - ${each.value.credential}',
    '    otelExport: { enabled: true, endpoint: https://otel.example.com }',
    '    tokens:',
    '      t:',
    '        forEach: ${each.value.tokens}',
    '        name: t${each.key}',
    '        scopes: [run]',
  ].join('\n')}\n`;
}

function writtenOutYaml(shape) {
  const lines = ['version: 1', `account: ${account}`, 'projects:'];
  for (let p = 0; p < shape.projects; p++) {
    lines.push(`  p${p}:`, '    records:');
    for (let r = 0; r < shape.recordsPerProject; r++) lines.push(`      r${r}: { tags: [bench] }`);
  }
  lines.push('credentials:');
  for (let c = 0; c < shape.credentials; c++) lines.push(`  c${c}: { provider: openai, secret: { env: BENCH_KEY } }`);
  lines.push('gateways:');
  for (let g = 0; g < shape.gateways; g++) {
    lines.push(
      `  g${g}:`,
      `    project: p${g % shape.projects}`,
      '    defaultProvider: openai',
      '    defaultModel: gpt-4o-mini',
      `    credentials: [c${g}]`,
    );
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
  await all(of('project'), async (r) =>
    ids.set(
      r.address,
      (await client.call('createProject', { body: { accountId: account, name: r.attributes.name, description: '' } })).project_id,
    ),
  );
  await all(of('credential'), async (r) =>
    ids.set(
      r.address,
      (await client.call('createCredential', { body: { providerId, label: r.attributes.label, secret: env.BENCH_KEY } })).credential_id,
    ),
  );
  await all(of('record'), async (r) => {
    const projectId = ids.get(`project.${r.attributes.project}`);
    ids.set(
      r.address,
      (await client.call('createRecord', { body: { projectId, name: r.attributes.name, tags: r.attributes.tags } })).record_id,
    );
    parents.set(r.address, { projectId });
  });
  await all(of('gateway'), async (r) => {
    const a = r.attributes;
    const projectId = ids.get(`project.${a.project}`);
    const body = {
      projectId,
      name: a.name,
      slug: a.slug,
      defaultProviderId: providerId,
      defaultModel: a.defaultModel,
      credentialIds: a.credentials.map((c) => ids.get(`credential.${c}`)),
    };
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
    const body = {
      name: a.name,
      scopes: a.scopes,
      expiresInDays: a.expiresInDays,
      allowedModels: a.allowedModels,
      rateLimitPerMin: a.rateLimitPerMin,
    };
    ids.set(r.address, (await client.call('createGatewayToken', { path: { id: gatewayId }, body })).token_id);
    parents.set(r.address, { gatewayId });
  });
  const now = new Date().toISOString();
  await state.update((draft) => {
    for (const [address, id] of ids) {
      const r = byAddress.get(address);
      const fingerprints = r.kind === 'credential' ? { secret: state.crypto.fingerprint(address, 'secret', env.BENCH_KEY) } : {};
      draft.resources[address] = {
        kind: r.kind,
        id,
        ...(parents.has(address) ? { parents: parents.get(address) } : {}),
        inputs: structuredClone(r.attributes),
        fingerprints,
        createdAt: now,
        updatedAt: now,
      };
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

const PLAN_RUNS = 10;
const FLOOR_RUNS = 5;
/** With `--baseline`, how many times each build's measuring child runs, alternating. */
const ROUNDS = 3;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The same requests again, sent with nothing else to do (nothing parsed, checked or planned), at the same parallelism. */
async function requestFloor(url, requests) {
  const agent = new Agent({ keepAlive: true, maxSockets: PARALLELISM });
  const send = ({ method, path, headers }) =>
    new Promise((resolve, reject) => {
      const req = request(new URL(path, url), { method, headers, agent }, (res) => res.resume().on('end', resolve).on('error', reject));
      req.on('error', reject);
      req.end();
    });
  const started = performance.now();
  await Promise.all(requests.map(send));
  const ms = performance.now() - started;
  agent.destroy();
  return ms;
}

/** Peak RSS in MB of one `cplane plan` of `dir`: a preloaded module writes it on exit to file descriptor 3. */
async function cliPeakRssMb(dir, url, root) {
  const report = `import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(3, String(process.resourceUsage().maxRSS)));`;
  const bin = join(root, 'bin', 'cplane.js');
  const cliEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    NO_COLOR: '1',
    CPLANE_BASE_URL: url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: account,
    ...env,
  };
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(report)}`, bin, 'plan', dir, '--detailed-exitcode'],
    { cwd: dir, env: cliEnv, stdio: ['ignore', 'ignore', 'inherit', 'pipe'] },
  );
  const output = [];
  child.stdio[3].on('data', (chunk) => output.push(chunk));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`cplane plan exited ${code}, expected 0 (no changes)`);
  return Number(Buffer.concat(output).toString('utf8')) / 1024;
}

/**
 * Child process: plans PLAN_RUNS times with the build of the checkout `root` (this one, or the one given by
 * `--baseline`), then measures the request floor; prints one JSON line. Each plan's CPU time is printed beside
 * its wall time: on a busy machine the wall time waits for a core, the CPU time does not. Of that CPU time, the part
 * spent after the last answer arrived (`tailCpuMs`) is what the plan adds to the request floor: the work done while
 * requests are in flight overlaps with waiting for them.
 */
async function measureInChild(dir, url, root) {
  const dist = (module) => import(pathToFileURL(join(root, 'dist', module)).href);
  const [{ createClient }, { loadConfiguration }, { makePlan }, { openState }] = await Promise.all(
    ['api/index.js', 'providers/index.js', 'planner/index.js', 'state/index.js'].map(dist),
  );
  const { desired } = await loadConfiguration(dir, { env, cwd: dir });
  const state = await openState({ configDir: dir, account, env, command: 'bench', lock: true });
  const client = createClient({ baseUrl: url, token: fixtures.tokens.admin, accountId: account, concurrency: PARALLELISM });
  let sent;
  dc.subscribe('http.client.request.start', ({ request: req }) =>
    sent?.push({ method: req.method, path: req.path, headers: req.getHeaders() }),
  );
  let cpuAtLastAnswer;
  dc.subscribe('http.client.response.finish', () => {
    cpuAtLastAnswer = process.cpuUsage();
  });
  const planMs = [];
  const cpuMs = [];
  const tailCpuMs = [];
  let requests = [];
  for (let i = 0; i < PLAN_RUNS; i++) {
    sent = [];
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const plan = await makePlan({ desired, state, client, account, parallelism: PARALLELISM, env });
    const cpu = process.cpuUsage(cpuBefore);
    const tail = process.cpuUsage(cpuAtLastAnswer);
    planMs.push(performance.now() - started);
    cpuMs.push((cpu.user + cpu.system) / 1000);
    tailCpuMs.push((tail.user + tail.system) / 1000);
    if (plan.steps.length > 0)
      throw new Error(`expected no changes, got ${plan.steps.length} steps (first: ${plan.steps[0].action} ${plan.steps[0].address})`);
    requests = sent;
  }
  sent = undefined;
  await client.close();
  await state.close();
  const floorMs = [];
  for (let i = 0; i < FLOOR_RUNS; i++) floorMs.push(await requestFloor(url, requests));
  console.log(JSON.stringify({ planMs, cpuMs, tailCpuMs, floorMs, requests: requests.length }));
}

/**
 * Child process, after the first: spend and models (docs/insight.md). With nothing spend-related changed they
 * read nothing, and their first passes are all they cost: measured alone, the plan without them is today's.
 * Then the same plan with a spend limit on every gateway, and the usage reads it sends (one per gateway).
 */
async function measureSpendInChild(dir, url) {
  const { desired } = await loadConfiguration(dir, { env, cwd: dir });
  const state = await openState({ configDir: dir, account, env, command: 'bench', lock: true });
  const client = createClient({ baseUrl: url, token: fixtures.tokens.admin, accountId: account, concurrency: PARALLELISM });
  let sent;
  dc.subscribe('http.client.request.start', ({ request: req }) => sent?.push({ method: req.method, path: req.path }));
  // Spend and models (docs/insight.md): with nothing spend-related changed they read nothing, and their first
  // passes are all they cost; measured alone, the plan without them is "today's" plan.
  const byAddress = new Map(desired.resources.map((r) => [r.address, r]));
  const stagesMs = [];
  for (let i = 0; i < PLAN_RUNS; i++) {
    const started = performance.now();
    modelChecks(desired.resources, byAddress, state.data.resources);
    spendTouched([]);
    stagesMs.push(performance.now() - started);
  }
  // The same plan with a spend limit on every gateway: one usage read per gateway.
  const limited = {
    ...desired,
    resources: desired.resources.map((r) =>
      r.kind === 'gateway' ? { ...r, attributes: { ...r.attributes, settings: { spendLimitUsd: '100.00', window: 'day' } } } : r,
    ),
  };
  const spendMs = [];
  let usageReads = 0;
  for (let i = 0; i < PLAN_RUNS; i++) {
    sent = [];
    const started = performance.now();
    const plan = await makePlan({ desired: limited, state, client, account, parallelism: PARALLELISM, env });
    spendMs.push(performance.now() - started);
    if (!plan.spend) throw new Error('expected the spend of the limited gateways');
    usageReads = sent.filter((r) => r.path.startsWith('/v1/usage/')).length;
  }
  await client.close();
  await state.close();
  console.log(JSON.stringify({ stagesMs, spendMs, usageReads }));
}

/** Runs one measuring child (`--measure`) with the build of `root`; with `cpuProfDir`, under V8's CPU profiler. */
async function runMeasuringChild(dir, url, root, cpuProfDir) {
  const profile = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  // The V8 flags the CLI of that build runs with (bin/v8-flags.js; none before it existed), so the plans cost here
  // what they cost a user.
  const flagsFile = join(root, 'bin', 'v8-flags.js');
  const v8Flags = existsSync(flagsFile) ? createRequire(import.meta.url)(flagsFile).flags : [];
  const child = spawn(process.execPath, [...v8Flags, ...profile, fileURLToPath(import.meta.url), '--measure', dir, url, root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the measuring process (${root}) exited ${code}`);
  return JSON.parse(Buffer.concat(output).toString('utf8'));
}

async function measure(shape, builds) {
  const emulator = await startEmulatorProcess();
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-plan-'));
  try {
    writeFileSync(join(dir, 'main.yaml'), configYaml(shape));
    const { desired, diagnostics } = await loadConfiguration(dir, { env, cwd: dir });
    if (!desired) throw new Error(`bench configuration is invalid: ${JSON.stringify(diagnostics.slice(0, 3))}`);
    const state = await openState({ configDir: dir, account, env, command: 'bench', lock: true });
    const setup = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account, concurrency: 32 });
    await arrange(setup, state, desired);
    await setup.close();
    await state.close();

    await emulator.setLatency(LATENCY_MS);
    // The builds alternate, each starting every other round, so a machine that gets busier or quieter during
    // the run stretches both alike. The requests per operation are counted during this build's first child.
    const rounds = builds.length > 1 ? ROUNDS : 1;
    const runs = builds.map(() => ({ planMs: [], cpuMs: [], tailCpuMs: [], floorMs: [], requests: 0 }));
    let byOperation;
    for (let round = 0; round < rounds; round++) {
      const order = builds.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        const counting = i === 0 && round === 0;
        if (counting) await emulator.resetStats();
        const result = await runMeasuringChild(dir, emulator.url, builds[i].root, options['cpu-prof']);
        if (counting) byOperation = (await emulator.stats()).byOperation;
        runs[i].planMs.push(...result.planMs);
        runs[i].cpuMs.push(...result.cpuMs);
        runs[i].tailCpuMs.push(...result.tailCpuMs);
        runs[i].floorMs.push(...result.floorMs);
        runs[i].requests = result.requests;
      }
    }
    const rssMb = [];
    for (const build of builds) rssMb.push(await cliPeakRssMb(dir, emulator.url, build.root));
    const spendChild = spawn(process.execPath, [fileURLToPath(import.meta.url), '--measure-spend', dir, emulator.url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const spendOutput = [];
    spendChild.stdout.on('data', (chunk) => spendOutput.push(chunk));
    if ((await once(spendChild, 'exit'))[0] !== 0) throw new Error('the spend measuring process failed');
    const spend = JSON.parse(Buffer.concat(spendOutput).toString('utf8'));
    const passes = PLAN_RUNS + FLOOR_RUNS;

    const records = shape.projects * shape.recordsPerProject;
    const label = `${desired.resources.length} resources${shape.forEach ? ' from forEach' : ' written out'}`;
    console.log(
      `plan of ${desired.resources.length} resources${shape.forEach ? ' from forEach templates' : ''} (${shape.projects} projects, ${records} records, ${shape.credentials} credentials, ${shape.gateways} gateways with OTel export, ${shape.tokens} tokens)`,
    );
    const operations = Object.entries(byOperation)
      .filter(([, n]) => n > 0)
      .map(([op, n]) => `${op} ${n / passes}`)
      .join(', ');
    console.log(`  requests sent: ${runs[0].requests} (${operations})`);
    const figures = runs.map((run, i) => {
      const best = Math.min(...run.planMs);
      const middle = median(run.planMs);
      const floor = Math.min(...run.floorMs);
      const latencyBoundMs = (run.requests / PARALLELISM) * LATENCY_MS;
      const by = builds.length > 1 ? ` [${builds[i].name}]` : '';
      if (i > 0) console.log(`  requests sent${by}: ${run.requests}`);
      console.log(
        `  wall time${by}: best ${best.toFixed(0)} ms, median ${middle.toFixed(0)} ms of ${run.planMs.length} runs; CPU time median ${median(run.cpuMs).toFixed(0)} ms a plan, ${median(run.tailCpuMs).toFixed(0)} ms of it after the last answer (best ${Math.min(...run.tailCpuMs).toFixed(0)} ms)`,
      );
      console.log(
        `  latency bound${by}: ${run.requests} / ${PARALLELISM} x ${LATENCY_MS} ms = ${latencyBoundMs.toFixed(0)} ms; ratio ${(best / latencyBoundMs).toFixed(2)}x best, ${(middle / latencyBoundMs).toFixed(2)}x median`,
      );
      console.log(
        `  request floor${by} (the same requests alone, best of ${run.floorMs.length}): ${floor.toFixed(0)} ms; ratio ${(best / floor).toFixed(2)}x best, ${(middle / floor).toFixed(2)}x median (goal <= 1.5x)`,
      );
      return {
        rssMb: rssMb[i],
        best: best / floor,
        median: middle / floor,
        cpuMs: median(run.cpuMs),
        tailCpuMs: median(run.tailCpuMs),
        bestTailCpuMs: Math.min(...run.tailCpuMs),
      };
    });
    const stages = median(spend.stagesMs);
    const middle = median(runs[0].planMs);
    console.log(
      `  spend and models when nothing spend-related changes: ${stages.toFixed(2)} ms of the median plan; ratio to the plan without them ${(middle / (middle - stages)).toFixed(3)}x (goal <= 1.1x)`,
    );
    console.log(
      `  the same plan with a spend limit on each of ${shape.gateways} gateways: median ${median(spend.spendMs).toFixed(0)} ms, ${(median(spend.spendMs) / middle).toFixed(2)}x the unchanged plan; usage reads ${spend.usageReads} (one per gateway)`,
    );
    console.log(
      `  peak RSS of one \`cplane plan\` of this folder: ${rssMb.map((mb, i) => `${mb.toFixed(0)} MB${builds.length > 1 ? ` [${builds[i].name}]` : ''}`).join(', ')} (goal at 10,020: < 150 MB)`,
    );
    return { label, figures };
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--measure-spend') {
  await measureSpendInChild(process.argv[3], process.argv[4]);
  process.exit(0);
}
if (process.argv[2] === '--measure') {
  await measureInChild(process.argv[3], process.argv[4], process.argv[5]);
  process.exit(0);
}
// --baseline REF: another commit (a Git revision, built in a temporary work tree: bench/lib/baseline-build.mjs) or
//   another checkout's directory with its own dist/, planned side by side with this one, alternating.
// --keep-baseline: leave the baseline's work tree (in the temporary folder) for the next run to reuse.
// --cpu-prof DIR: the measuring children run under V8's profiler (bench/lib/profile-summary.mjs reads the files).
// --only N: only the shapes of N resources (2000 or 10020).
const { values: options } = parseArgs({
  options: {
    baseline: { type: 'string' },
    'keep-baseline': { type: 'boolean' },
    'cpu-prof': { type: 'string' },
    only: { type: 'string' },
  },
});
const here = fileURLToPath(new URL('..', import.meta.url));
const baseline = options.baseline ? baselineBuild(options.baseline, here, { keep: options['keep-baseline'] }) : undefined;
const builds = [{ name: 'this build', root: here }, ...(baseline ? [{ name: 'baseline', root: baseline.root }] : [])];
console.log(
  `latency ${LATENCY_MS} ms per request, parallelism ${PARALLELISM}; the emulator runs in its own process; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
if (baseline) console.log(`side by side, alternating ${ROUNDS} times: this build (${here}) and the baseline ${baseline.name}`);
const results = [];
for (const shape of shapes) {
  const size = shape.projects * (1 + shape.recordsPerProject) + shape.credentials + 2 * shape.gateways + shape.tokens;
  if (!options.only || Number(options.only) === size) results.push(await measure(shape, builds));
}
const goal = (label) => (label.includes('2000') ? 1.5 : label.includes('forEach') ? 1.3 : 1.25);
console.log('ratio to the request floor, side by side (goals: 1.5x at 2,000; at 10,020 1.25x written out, 1.3x from forEach):');
for (const { label, figures } of results)
  console.log(
    `  ${label.padEnd(32)} ${figures.map((f, i) => `${f.best.toFixed(2)}x best, ${f.median.toFixed(2)}x median, ${f.rssMb.toFixed(0)} MB${builds.length > 1 ? ` [${builds[i].name}]` : ''}`).join('; ')} (goal <= ${goal(label)}x)`,
  );
baseline?.remove();
if (options.baseline) {
  // A table to paste into docs/performance.md.
  console.log(
    `\n| plan | baseline: ratio to the floor, best / median | this build | CPU a plan (median), baseline → this build | of it after the last answer, median | the same, best | peak RSS of one plan, baseline → this build |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const {
    label,
    figures: [after, before],
  } of results) {
    const ratios = (f) => `${f.best.toFixed(2)}× / ${f.median.toFixed(2)}×`;
    const cpu = (key) => `${before[key].toFixed(0)} → ${after[key].toFixed(0)} ms (${(after[key] / before[key]).toFixed(2)}×)`;
    console.log(
      `| ${label} | ${ratios(before)} | ${ratios(after)} | ${cpu('cpuMs')} | ${cpu('tailCpuMs')} | ${cpu('bestTailCpuMs')} | ${before.rssMb.toFixed(0)} → ${after.rssMb.toFixed(0)} MB |`,
    );
  }
}
