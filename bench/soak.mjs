// A simulated month (60 days), with no person: `cplane reconcile` (the real CLI) runs once a simulated day against
// the emulator, whose clock is moved a day before each run (never by sleeping), over a configuration with gateway
// tokens of `expiresInDays: 7, renewBeforeDays: 2` delivered to records, generated records rotated every 10 days and
// a grant that ends (`until`), all granted to a Service Account that reads them every day. After each run the account is inspected and each goal below counted; every
// goal is 0. Printed, never asserted (a run is a story of the whole loop; the e2e tests assert the parts).
//
// Adding to it: a piece of configuration is one entry of `pieces`, a daily check one entry of `checks` (each
// returns the failures it saw that day, one reason each).
//   node bench/soak.mjs [DAYS] [--control]
// `--control` runs no reconcile at all (a month in which nobody applies): the checks must then count failures,
// which shows they can.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../dist/api/index.js';
import { startEmulator } from '../dist/emulator/index.js';
import { fixtures } from '../dist/emulator/fixtures.js';
import { fixtureKeyPair } from '../dist/emulator/keys.js';

const DAYS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 60);
const CONTROL = process.argv.includes('--control');
const DAY_MS = 86_400_000;
const TOKENS = ['api', 'batch', 'ci'];
/** A grant that ends (`until`) 20 days in, for a record the reader may read until then. */
const UNTIL_DAYS = 20;
const RECORDS = [
  { name: 'signing', firstDueDays: 10 },
  { name: 'webhook', firstDueDays: 4 },
];
const account = fixtures.accounts[0].id;
const reader = fixtures.serviceAccounts[0];
const bin = join(import.meta.dirname, '..', 'bin', 'cplane.js');

const temp = mkdtempSync(join(tmpdir(), 'cplane-soak-'));
const dir = join(temp, 'infra');
const emulator = await startEmulator({});
const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: account });
const now = () => new Date(Date.now() + emulator.clockOffsetMs());
const env = {
  PATH: process.env.PATH,
  HOME: temp,
  NO_COLOR: '1',
  CI: '1',
  CPLANE_BASE_URL: emulator.url,
  CPLANE_TOKEN: fixtures.tokens.admin,
  CPLANE_ACCOUNT: account,
  CPLANE_STATE_KEY: Buffer.alloc(32, 3).toString('base64'),
  OPENAI_API_KEY: 'sk-soak-openai',
};

/** The configuration, one piece per concern, as YAML blocks under their keys. */
const start = now();
const pieces = {
  projects: [
    '  soak:',
    '    name: soak',
    '    records:',
    ...RECORDS.flatMap((r) => [
      `      ${r.name}:`,
      '        value: { generate: { length: 32 } }',
      '        rotationIntervalDays: 10',
      `        secretDueAt: ${new Date(start.getTime() + r.firstDueDays * DAY_MS).toISOString()}`,
      `        grants: { serviceAccounts: [${reader.name}] }`,
    ]),
    // Each token is delivered to a record of its own, granted to the reader: what its application reads.
    ...TOKENS.flatMap((t) => [`      ${t}-token:`, `        grants: { serviceAccounts: [${reader.name}] }`]),
    '      temporary:',
    '        value: { generate: { length: 16 } }',
    `        grants: { serviceAccounts: [{ name: ${reader.name}, until: "${new Date(start.getTime() + UNTIL_DAYS * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z')}", reason: SOAK-1 }] }`,
  ],
  credentials: ['  openai: { provider: openai, label: soak-openai, secret: { env: OPENAI_API_KEY } }'],
  gateways: [
    '  main:',
    '    project: soak',
    '    name: Soak',
    '    slug: soak-main',
    '    defaultProvider: openai',
    '    defaultModel: gpt-4o-mini',
    '    credentials: [openai]',
    '    tokens:',
    ...TOKENS.map((t) => `      ${t}: { scopes: [run], expiresInDays: 7, renewBeforeDays: 2, deliverTo: { record: soak/${t}-token } }`),
  ],
};
mkdirSync(dir);
writeFileSync(
  join(dir, 'main.yaml'),
  `version: 1\n${Object.entries(pieces)
    .map(([key, lines]) => `${key}:\n${lines.join('\n')}`)
    .join('\n')}\n`,
);

function cli(args, extra = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: temp, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const statePath = join(dir, '.cplane', account, 'state.json');
const stateNow = () => JSON.parse(readFileSync(statePath, 'utf8')).resources;
const gatewayId = async () => (await client.listAll('listGateways', {})).find((g) => g.slug === 'soak-main').gateway_id;
const isActive = (t, at) => t.revoked_at === null && Date.parse(t.expires_at) > at.getTime();

/** The daily checks: each counts the failures it sees after a run (goal 0 each), with a reason per failure. */
const readerEnv = () => ({
  CPLANE_TOKEN: fixtures.tokens.serviceAccount,
  CPLANE_SA_KEY: Buffer.from(fixtureKeyPair(reader.id).privateKey).toString('base64'),
  CPLANE_WRITER_KEY: writerKey,
  CPLANE_STATE_KEY: '',
});
/** The token a reader holds: the value of the record its token is delivered to, read as the reader, matched by prefix. */
async function heldToken(t, tokens, allRecords) {
  const record = allRecords.find((r) => r.name === `${t}-token`);
  const read = record ? await cli(['read', '--record-id', record.record_id], readerEnv()) : { code: 1 };
  if (read.code !== 0) return undefined;
  return tokens.find((x) => read.stdout.trim().startsWith(x.token_prefix));
}
const checks = {
  'expired tokens a reader held as current': async ({ tokens, allRecords, at }) => {
    const out = [];
    for (const t of TOKENS) {
      const held = await heldToken(t, tokens, allRecords);
      if (!held || Date.parse(held.expires_at) <= at.getTime()) out.push(`${t} ${held ? 'expired' : 'unreadable'}`);
    }
    return out;
  },
  'days a reader held a revoked token': async ({ tokens, allRecords }) => {
    const out = [];
    for (const t of TOKENS) if ((await heldToken(t, tokens, allRecords))?.revoked_at) out.push(`${t} revoked`);
    return out;
  },
  // Two active tokens of one name, the older not waiting out its overlap in state.
  'duplicate tokens (active outside an overlap)': async ({ state, tokens, at }) =>
    TOKENS.flatMap((t) => {
      const entry = state[`gateway_token.main/${t}`];
      const waiting = new Set((entry?.superseded ?? []).filter((s) => Date.parse(s.revocableAt) > at.getTime() - DAY_MS).map((s) => s.id));
      return tokens
        .filter((x) => x.name === t && isActive(x, at) && x.token_id !== entry?.id && !waiting.has(x.token_id))
        .map((x) => `${t} ${x.token_id}`);
    }),
  // Due for more than one run: a run rotates what is due on its day.
  'overdue rotations': async ({ records, at }) =>
    records
      .filter((r) => r.secret_due_at && Date.parse(r.secret_due_at) < at.getTime() - DAY_MS)
      .map((r) => `${r.name} due ${r.secret_due_at}`),
  // The reader reads each record every day, as its application would.
  'days a reader could not read its record': async ({ records }) => {
    const failures = [];
    for (const r of records) {
      const read = await cli(['read', '--record-id', r.record_id], readerEnv());
      if (read.code !== 0) failures.push(`${r.name}: ${read.stderr.split('\n')[0]}`);
    }
    return failures;
  },
  // The grant of `temporary` ends at UNTIL_DAYS: alive a run after that is a failure.
  'grants alive past until for more than one run': async ({ allRecords, at }) => {
    const temporary = allRecords.find((r) => r.name === 'temporary');
    const alive = temporary?.grants?.service_account_ids?.includes(reader.id);
    return alive && at.getTime() > start.getTime() + (UNTIL_DAYS + 1) * DAY_MS ? ['temporary still granted'] : [];
  },
};

const setup = await cli(['apply', dir, '--auto-approve']);
if (setup.code !== 0) throw new Error(`setup apply failed: ${setup.stderr}`);
const writerKey = JSON.parse((await cli(['writer-key', dir, '--json'])).stdout).publicKey;

const totals = Object.fromEntries(Object.keys(checks).map((name) => [name, 0]));
const examples = {};
let personSteps = 0;
let failedRuns = 0;
let applied = 0;
const renewals = { renew: 0, rotate: 0 };
for (let day = 1; day <= DAYS; day++) {
  emulator.moveClock('1d');
  const run = CONTROL ? { code: 0, stdout: '' } : await cli(['reconcile', dir, '--json']);
  const report = JSON.parse(run.stdout.split('\n')[0] || '{}');
  if (run.code !== 0) failedRuns += run.code === 2 ? 0 : 1;
  personSteps += report.withheld?.length ?? 0;
  applied += report.apply?.length ?? 0;
  for (const step of report.apply ?? []) if (step.action in renewals) renewals[step.action]++;
  const at = now();
  const allRecords = await client.listAll('listRecords', {});
  const input = {
    at,
    state: stateNow(),
    tokens: await client.listAll('listGatewayTokens', { path: { id: await gatewayId() } }),
    allRecords,
    records: allRecords.filter((r) => RECORDS.some((x) => x.name === r.name)),
  };
  for (const [name, check] of Object.entries(checks)) {
    const failures = await check(input);
    totals[name] += failures.length;
    if (failures.length > 0) (examples[name] ??= []).push(`day ${day}: ${failures.join('; ')}`);
  }
}

console.log(
  `soak${CONTROL ? ' (control: no reconcile)' : ''}: ${DAYS} simulated days, ${CONTROL ? 'no run' : 'one `cplane reconcile` a day'}; ${TOKENS.length} tokens (expiresInDays 7, renewBeforeDays 2), ${RECORDS.length} records rotated every 10 days, read daily by a Service Account; tokens delivered to records; a grant ending on day ${UNTIL_DAYS}`,
);
console.log(
  `  steps applied by reconcile: ${applied} (renewals and revocations after overlaps: ${renewals.renew}, rotations: ${renewals.rotate})`,
);
for (const [name, total] of Object.entries(totals))
  console.log(`  ${name}: ${total}${examples[name] ? `  (${examples[name].slice(0, 3).join(' | ')})` : ''}`);
console.log(`  person steps (withheld for a person): ${personSteps}`);
console.log(`  reconcile runs that failed: ${failedRuns}`);
await client.close();
await emulator.close();
rmSync(temp, { recursive: true, force: true });
