// Benchmark: `cplane export` of an emulator account holding 2,000 objects, with 20 ms of latency on every
// request. Prints the requests sent and the wall time. Run after `npm run build`: node bench/export.mjs
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient } from '../dist/api/client.js';
import { startEmulator } from '../dist/emulator/index.js';
import { exportAccount } from '../dist/export/index.js';

const LATENCY_MS = 20;
// 10 projects + 1,500 records + 20 credentials + 100 gateways + 370 tokens = 2,000 objects (and 100 OTel exports).
const PROJECTS = 10;
const RECORDS_PER_PROJECT = 150;
const CREDENTIALS = 20;
const GATEWAYS_PER_PROJECT = 10;
const TOKENS = 370;

const emulator = await startEmulator({ latencyMs: 0 });
const account = emulator.fixtures.accounts[1].id;
const providerId = emulator.fixtures.providers.find((p) => p.name === 'openai').id;
const root = mkdtempSync(join(tmpdir(), 'cplane-bench-export-'));
const seeding = createClient({ baseUrl: emulator.url, token: emulator.fixtures.tokens.admin, accountId: account, concurrency: 32 });

try {
  const credentials = await Promise.all(
    Array.from({ length: CREDENTIALS }, (_, i) =>
      seeding.call('createCredential', { body: { providerId, label: `openai-${i}`, secret: `sk-bench-secret-${i}` } }),
    ),
  );
  const gateways = [];
  for (let p = 0; p < PROJECTS; p++) {
    const projectId = (await seeding.call('createProject', { body: { accountId: account, name: `project-${p}`, description: 'bench' } }))
      .project_id;
    await Promise.all(
      Array.from({ length: RECORDS_PER_PROJECT }, (_, r) =>
        seeding.call('createRecord', { body: { projectId, name: `record-${r}`, tags: ['bench', `p${p}`], rotationIntervalDays: 30 } }),
      ),
    );
    gateways.push(
      ...(await Promise.all(
        Array.from({ length: GATEWAYS_PER_PROJECT }, (_, g) =>
          seeding.call('createGateway', {
            body: {
              projectId,
              name: `gateway ${p}-${g}`,
              slug: `gw-${p}-${g}`,
              defaultProviderId: providerId,
              defaultModel: 'gpt-4o-mini',
              credentialIds: [credentials[(p + g) % CREDENTIALS].credential_id],
            },
          }),
        ),
      )),
    );
  }
  await Promise.all(
    gateways.map((g, i) =>
      seeding.call('updateOtelExport', {
        path: { id: g.gateway_id },
        body: { enabled: true, endpoint: `https://otel.example.com/${i}`, headers: { Authorization: `Bearer bench-${i}` } },
      }),
    ),
  );
  await Promise.all(
    Array.from({ length: TOKENS }, (_, t) =>
      seeding.call('createGatewayToken', {
        path: { id: gateways[t % gateways.length].gateway_id },
        body: { name: `token-${t}`, scopes: ['run'], expiresInDays: 90 },
      }),
    ),
  );

  emulator.setLatency(LATENCY_MS);
  emulator.resetStats();
  const started = performance.now();
  const result = await exportAccount({
    connect: (accountId) =>
      createClient({ baseUrl: emulator.url, token: emulator.fixtures.tokens.admin, ...(accountId ? { accountId } : {}) }),
    account,
    projectNames: [],
    outDir: join(root, 'out'),
    force: false,
    adopt: false,
    env: {},
    command: 'bench',
  });
  const wallMs = performance.now() - started;
  const stats = emulator.stats();
  const { counts } = result;
  const objects = counts.projects + counts.records + counts.credentials + counts.gateways + counts.tokens;
  console.log(
    `export of ${objects} objects (+${counts.otelExports} OTel exports) with ${LATENCY_MS} ms latency per request, parallelism 10:`,
  );
  console.log(
    `  requests:  ${stats.requests} (${Object.entries(stats.byOperation)
      .filter(([, n]) => n > 0)
      .map(([op, n]) => `${op} ${n}`)
      .join(', ')})`,
  );
  console.log(`  wall time: ${(wallMs / 1000).toFixed(2)} s`);
  console.log(`  files:     ${readdirSync(join(root, 'out')).length}`);
} finally {
  await seeding.close();
  await emulator.close();
  rmSync(root, { recursive: true, force: true });
}
