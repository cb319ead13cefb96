// Benchmark: loading (parsing, interpolating, validating, cross-checking) a generated
// configuration of 5,000 and of 20,000 resources spread over 10 files, in-process.
// Goals: under 1 s at 5,000 and under 3 s at 20,000, on 2 cores.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfiguration } from '../dist/providers/index.js';

const FILES = 10;
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
        'projects:', ...units.flatMap((u) => u.project),
        'credentials:', ...units.flatMap((u) => u.credential),
        'gateways:', ...units.flatMap((u) => u.gateway),
      ].join('\n');
      writeFileSync(join(dir, `part-${String(f).padStart(2, '0')}.yaml`), `${text}\n`);
    }

    // CPU time is printed beside wall time: on a shared 2-core machine other processes stretch the
    // wall clock, while CPU time shows what loading itself costs.
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
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const wall = median(times);
    console.log(`validate: ${resources} resources in ${FILES} files`);
    console.log(`  first run (cold): ${times[0].toFixed(0)} ms wall, ${cpuTimes[0].toFixed(0)} ms CPU`);
    console.log(`  median of 5 runs: ${wall.toFixed(0)} ms wall, ${median(cpuTimes).toFixed(0)} ms CPU (goal < ${goalMs} ms) ${wall < goalMs ? 'OK' : 'SLOW'}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
