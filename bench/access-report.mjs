// bench/access-report: `cplane access report` over 10,000 records with 5 readers each (3 Service Accounts, a user and a
// group, all in the configuration) and 20,000 rows of record-access audit feed (a value version and one read per
// record), against the emulator with 20 ms of latency per request. The account is seeded directly in the emulator's
// data file before it starts (no API writes). Measured side by side in one run, alternating, 3 times each (medians):
//   lists: the requests the report sends (records, projects, Service Accounts, the audit feed: every page), alone;
//   report: what the command does, through the function it calls (produceAccessReport of
//     src/cli/commands/access-report.ts): load the configuration on a worker thread while those requests are sent,
//     open the state, compute the report, render it as text. Its phases are the performance marks it leaves.
// Goal: report ≤ 1.5× lists. Printed, never asserted. Also printed: what loading the configuration in this thread
// costs, and what structured-cloning the worker's answer (the loaded configuration) costs, both once.
// Figures and their history: docs/performance.md, "Access report".
/* global performance, structuredClone */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../dist/api/index.js';
import { startEmulator } from '../dist/emulator/index.js';
import { fixtures } from '../dist/emulator/fixtures.js';
import { printableKeyPair } from '../dist/emulator/keys.js';
import { Writable } from 'node:stream';
import { produceAccessReport } from '../dist/cli/commands/access-report.js';
import { readAccess } from '../dist/access/index.js';
import { loadConfiguration } from '../dist/providers/index.js';

const RECORDS = Number(process.argv[2] ?? 10_000);
const LATENCY_MS = 20;
const RUNS = 3;
const account = fixtures.accounts[0].id;
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'cplane-bench-access-report-'));
const dataFile = join(dir, 'emulator-data.json');

const seeding = await startEmulator({ dataFile });
await seeding.close();
const data = JSON.parse(readFileSync(dataFile, 'utf8'));
const model = data.serviceAccounts.find((s) => s.account_id === account && s.status === 'active');
const serviceAccounts = [model];
for (const n of [2, 3]) {
  const { public_key: _key, key_id: _id, ...rest } = model;
  const added = { ...rest, service_account_id: `0e000000-0000-4000-8000-0000000002${n}0`, name: `bench-reader-${n}` };
  data.serviceAccounts.push(added);
  serviceAccounts.push(added);
}
const dana = fixtures.users[2];
const platform = fixtures.groups[0];
const projectId = '1a000000-0000-4000-8000-000000000900';
const at = new Date(Date.now() - 10 * 86_400_000).toISOString();
data.projects.push({
  project_id: projectId,
  account_id: account,
  name: 'bench-access',
  description: '',
  is_active: true,
  archived: false,
  archived_at: null,
  created_at: at,
  updated_at: at,
});
const hex = (n, width) => n.toString(16).padStart(width, '0');
for (let i = 0; i < RECORDS; i++) {
  const recordId = `1b000000-0000-4000-8000-${hex(0x100000 + i, 12)}`;
  data.records.push({
    record_id: recordId,
    account_id: account,
    project_id: projectId,
    name: `r${i}`,
    tags: [],
    secret_due_at: null,
    rotation_interval_days: null,
    format: 'text',
    owner_user_id: fixtures.users[0].id,
    current_version: 1,
    archived: false,
    archived_at: null,
    created_at: at,
    updated_at: at,
    versions: [
      {
        version: 1,
        reason: 'create',
        created_by: fixtures.users[0].id,
        created_at: at,
        ciphertext: 'Y2lwaGVy',
        wrapper: { alg: 'bench', keyId: 'bench', wrappedDek: 'ZGVr' },
      },
    ],
    user_grants: { [dana.id]: 'x' },
    group_grants: { [platform.id]: 'x' },
    service_account_grants: Object.fromEntries(serviceAccounts.map((s) => [s.service_account_id, 'x'])),
  });
  const row = (n, action, actorType, actorId, when) => ({
    audit_id: `3a000000-0000-4000-8000-${hex(n, 12)}`,
    account_id: account,
    record_id: recordId,
    project_id: projectId,
    action,
    actor_type: actorType,
    actor_id: actorId,
    created_at: when,
  });
  data.audit.push(row(2 * i, 'version', 'user', fixtures.users[0].id, at));
  data.audit.push(
    row(2 * i + 1, 'read', 'service_account', serviceAccounts[i % 3].service_account_id, new Date(Date.parse(at) + 60_000).toISOString()),
  );
}
data.audit.sort((a, b) => a.created_at.localeCompare(b.created_at));
writeFileSync(dataFile, JSON.stringify(data));

const grants = `grants: { serviceAccounts: [${serviceAccounts.map((s) => s.name).join(', ')}], users: [dana], groups: [platform] }`;
writeFileSync(
  join(dir, 'main.yaml'),
  [
    'version: 1',
    `account: ${account}`,
    'projects:',
    '  bench:',
    '    name: bench-access',
    '    records:',
    ...Array.from({ length: RECORDS }, (_, i) => `      r${i}: { ${grants} }`),
    'directory:',
    `  users: { dana: { id: ${dana.id}, publicKey: "${printableKeyPair(dana.id).publicKey}" } }`,
    `  groups: { platform: { id: ${platform.id}, publicKey: "${printableKeyPair(platform.id).publicKey}" } }`,
  ].join('\n') + '\n',
);

const emulator = await startEmulator({ dataFile, readOnlyData: true, latencyMs: LATENCY_MS });
const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account });
const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
// The command's context, as the CLI makes it: the folder, the connection and the account from the environment.
const ctx = {
  positionals: [dir],
  values: {},
  env: {
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: account,
    CPLANE_STATE_KEY: Buffer.alloc(32, 9).toString('base64'),
  },
  cwd: dir,
  stdout: discard,
  stderr: discard,
  stdin: process.stdin,
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const lists = [];
  const reports = [];
  const phases = [];
  let requests = 0;
  let readers = 0;
  for (let run = 0; run < RUNS; run++) {
    emulator.resetStats();
    let t0 = performance.now();
    await readAccess(client, account);
    lists.push(performance.now() - t0);
    requests = emulator.stats().requests;

    performance.clearMarks();
    t0 = performance.now();
    const { report } = await produceAccessReport(ctx, 'text', 90);
    const t1 = performance.now();
    const at = (name) => performance.getEntriesByName(`cplane:${name}`, 'mark')[0].startTime;
    reports.push(t1 - t0);
    phases.push({
      configuration: at('configuration-loaded') - t0,
      reads: at('access-read') - t0,
      computing: at('access-computed') - at('access-read'),
      text: at('access-rendered') - at('access-computed'),
    });
    readers = report.readerCount;
  }
  const [l, r] = [median(lists), median(reports)];
  console.log(
    `access report: ${RECORDS} records × 5 readers (${readers} reader rows), ${data.audit.length} audit rows, ${LATENCY_MS} ms latency; ${requests} requests per report`,
  );
  console.log(
    `  lists alone ${(l / 1000).toFixed(2)} s; report ${(r / 1000).toFixed(2)} s: ${(r / l).toFixed(2)}× the lists (goal ≤ 1.5×; medians of ${RUNS})`,
  );
  const phase = (name) => median(phases.map((p) => p[name]));
  console.log(
    `  of the report: configuration loaded (worker) at ${(phase('configuration') / 1000).toFixed(2)} s, reads and state done at ${(phase('reads') / 1000).toFixed(2)} s, then computing ${(phase('computing') / 1000).toFixed(2)} s, text ${(phase('text') / 1000).toFixed(2)} s`,
  );
  let t0 = performance.now();
  const loaded = await loadConfiguration(dir, { env: {}, cwd: dir });
  const inThread = performance.now() - t0;
  t0 = performance.now();
  structuredClone(loaded);
  const clone = performance.now() - t0;
  console.log(
    `  the configuration alone, in this thread ${(inThread / 1000).toFixed(2)} s (${loaded.desired.resources.length} addresses); structured clone of it (the worker's answer) ${(clone / 1000).toFixed(2)} s`,
  );
} finally {
  await client.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
}
