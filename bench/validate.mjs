// Benchmark: loading (parsing, interpolating, validating, cross-checking) a generated
// configuration of 5,000 and of 20,000 resources spread over 10 files, in-process.
// Goals: under 1 s at 5,000 and under 3 s at 20,000, on 2 cores.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../dist/providers/index.js';

const FILES = 10;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Loads the folder five times: the resources, the first (cold) run's wall and CPU ms, and the medians. */
async function loadFiveTimes(dir) {
  const times = [];
  const cpuTimes = [];
  let resources = 0;
  for (let run = 0; run < 5; run++) {
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    const { desired, diagnostics } = await loadConfiguration(dir, { env: {} });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const cpu = process.cpuUsage(cpuStart);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
    if (!desired) throw new Error(`generated configuration is invalid: ${diagnostics[0]?.summary}`);
    resources = desired.resources.length;
  }
  return { resources, first: { wall: times[0], cpu: cpuTimes[0] }, wall: median(times), cpu: median(cpuTimes) };
}

// Per unit: project + 4 records + credential + gateway + OTel export + 2 tokens = 10 resources.
const SIZES = [
  { units: 500, goalMs: 1000 },
  { units: 2000, goalMs: 3000 },
];

function unit(i) {
  return {
    project: [
      `  p${i}:`,
      `    name: project-${i}-\${var.env}`,
      '    description: Generated project',
      '    records:',
      ...[0, 1, 2, 3].flatMap((r) => [
        `      r${r}:`,
        '        tags: [generated, bench]',
        '        secretDueAt: 2027-01-01T00:00:00Z',
        '        rotationIntervalDays: 90',
        `        value: { env: RECORD_${r} }`,
      ]),
    ],
    credential: [`  c${i}:`, '    provider: openai', '    baseUrl: https://api.openai.com/v1', '    secret: { env: OPENAI_API_KEY }'],
    gateway: [
      `  g${i}:`,
      `    project: p${i}`,
      `    defaultProvider: openai`,
      '    defaultModel: gpt-4o-mini',
      `    credentials: [c${i}]`,
      '    settings: { requestsPerMinute: 600, window: day, cache: { enabled: true, ttlSeconds: 60 } }',
      '    otelExport:',
      '      endpoint: https://otel.example.com/v1',
      '      headers: { Authorization: { env: OTEL_AUTH } }',
      '    tokens:',
      '      ci: { scopes: [run], expiresInDays: 30, rateLimitPerMin: 60 }',
      '      logs: { scopes: [read_logs], allowedModels: [gpt-4o-mini] }',
    ],
  };
}

for (const { units: UNITS, goalMs } of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-bench-'));
  try {
    const perFile = UNITS / FILES;
    for (let f = 0; f < FILES; f++) {
      const units = Array.from({ length: perFile }, (_, k) => unit(f * perFile + k));
      const text = [
        ...(f === 0 ? ['version: 1', 'variables:', '  env: { default: bench }'] : []),
        'projects:',
        ...units.flatMap((u) => u.project),
        'credentials:',
        ...units.flatMap((u) => u.credential),
        'gateways:',
        ...units.flatMap((u) => u.gateway),
      ].join('\n');
      writeFileSync(join(dir, `part-${String(f).padStart(2, '0')}.yaml`), `${text}\n`);
    }

    // CPU time is printed beside wall time: on a shared 2-core machine other processes stretch the
    // wall clock, while CPU time shows what loading itself costs.
    const { resources, first, wall, cpu } = await loadFiveTimes(dir);
    console.log(`validate: ${resources} resources in ${FILES} files`);
    console.log(`  first run (cold): ${first.wall.toFixed(0)} ms wall, ${first.cpu.toFixed(0)} ms CPU`);
    console.log(
      `  median of 5 runs: ${wall.toFixed(0)} ms wall, ${cpu.toFixed(0)} ms CPU (goal < ${goalMs} ms) ${wall < goalMs ? 'OK' : 'SLOW'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// forEach: 10,000 gateways as the instances of 10 templates (one per file, each over a map variable of 1,000
// keys), against the same 10,000 gateways written out, loaded in the same run. Goal: the templates take at
// most 1.5x the time of the written-out files.
{
  const TEMPLATES = 10;
  const PER_TEMPLATE = 1000;
  const stem = [
    'version: 1',
    'projects:',
    '  core: { description: Core }',
    'credentials:',
    '  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }',
  ];
  const gatewayBody = (indent, name, slug, rpm) => [
    `${indent}project: core`,
    `${indent}name: ${name}`,
    `${indent}slug: ${slug}`,
    `${indent}defaultProvider: openai`,
    `${indent}defaultModel: gpt-4o-mini`,
    `${indent}credentials: [openai]`,
    `${indent}settings:`,
    `${indent}  requestsPerMinute: ${rpm}`,
    `${indent}  window: day`,
  ];
  const rpmOf = (t, k) => 10 + ((t * PER_TEMPLATE + k) % 900);
  const write = (dir, fileText) => {
    for (let t = 0; t < TEMPLATES; t++)
      writeFileSync(join(dir, `part-${String(t).padStart(2, '0')}.yaml`), `${[...(t === 0 ? stem : []), ...fileText(t)].join('\n')}\n`);
  };
  const written = mkdtempSync(join(tmpdir(), 'cplane-bench-written-'));
  const templated = mkdtempSync(join(tmpdir(), 'cplane-bench-foreach-'));
  try {
    write(written, (t) => [
      'gateways:',
      ...Array.from({ length: PER_TEMPLATE }, (_, k) => [
        `  g${t}-k${k}:`,
        ...gatewayBody('    ', `team k${k}`, `gw-${t}-k${k}`, rpmOf(t, k)),
      ]).flat(),
    ]);
    write(templated, (t) => [
      'variables:',
      `  teams${t}:`,
      '    type: map',
      '    default:',
      ...Array.from({ length: PER_TEMPLATE }, (_, k) => `      k${k}: { rpm: ${rpmOf(t, k)} }`),
      'gateways:',
      `  g${t}:`,
      `    forEach: \${var.teams${t}}`,
      ...gatewayBody('    ', 'team ${each.key}', `gw-${t}-\${each.key}`, '${each.value.rpm}'),
    ]);
    // Alternated, so that load on the shared machine falls on both alike.
    const out = await loadFiveTimes(written);
    const each = await loadFiveTimes(templated);
    const out2 = await loadFiveTimes(written);
    const outWall = Math.min(out.wall, out2.wall);
    const outCpu = Math.min(out.cpu, out2.cpu);
    console.log(
      `validate forEach: ${each.resources} resources (${TEMPLATES * PER_TEMPLATE} gateways from ${TEMPLATES} templates) vs ${out.resources} written out`,
    );
    console.log(`  written out: ${outWall.toFixed(0)} ms wall, ${outCpu.toFixed(0)} ms CPU (median of 5)`);
    console.log(`  forEach:     ${each.wall.toFixed(0)} ms wall, ${each.cpu.toFixed(0)} ms CPU (median of 5)`);
    console.log(
      `  ratio forEach / written out: ${(each.wall / outWall).toFixed(2)}x wall, ${(each.cpu / outCpu).toFixed(2)}x CPU (goal <= 1.5x) ${each.wall / outWall <= 1.5 ? 'OK' : 'SLOW'}`,
    );
  } finally {
    rmSync(written, { recursive: true, force: true });
    rmSync(templated, { recursive: true, force: true });
  }
}
