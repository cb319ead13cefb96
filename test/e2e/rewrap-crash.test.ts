// A record granted to `ci-deployer` gets a new value, and the apply is killed with SIGKILL right after the API
// answered the new value version, before the step re-wrapped the new data key for its reader. The value's
// fingerprint is recorded only with the step's last write, so nothing tells the next plan the value is done:
// it says what is pending (exit 2), the next apply writes the value again and re-wraps it for the reader, the
// Service Account reads the NEW value, it holds exactly one grant, and a second plan has no changes.
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { privateKeyOf } from '../helpers/readers.js';
import { runCli, type CliResult } from './helpers.js';

const acme = fixtures.accounts[0]!.id;
const ciDeployer = fixtures.serviceAccounts[0]!;
const stateKey = Buffer.alloc(32, 12).toString('base64');
const FIRST = 'sk_live_rewrap_first_4417';
const SECOND = 'sk_live_rewrap_second_9302';

let temp: string;
let dir: string;
let emulator: RunningEmulator;
let admin: ApiClient;
let recordId: string;

const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(args, {
  PATH: process.env.PATH, HOME: temp, XDG_CONFIG_HOME: join(temp, 'config'), NO_COLOR: '1',
  CPLANE_BASE_URL: emulator.url, CPLANE_ACCOUNT: acme, CPLANE_TOKEN: fixtures.tokens.admin, CPLANE_STATE_KEY: stateKey,
  ...env,
}, temp);

/** `cplane read` as ci-deployer: its token and its private key. */
const readAsServiceAccount = () => runCli(['read', '--record-id', recordId], {
  PATH: process.env.PATH, HOME: temp, NO_COLOR: '1', CPLANE_BASE_URL: emulator.url, CPLANE_ACCOUNT: acme,
  CPLANE_TOKEN: fixtures.tokens.serviceAccount, CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
}, temp);

const liveRecord = async () => (await admin.listAll('listRecords', {})).find((r) => r.record_id === recordId)!;

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-rewrap-crash-'));
  dir = join(temp, 'infra');
  mkdirSync(dir);
  emulator = await startEmulator({ dataFile: join(temp, 'emulator-data.json') });
  admin = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme });
  writeFileSync(join(dir, 'main.yaml'), `version: 1
projects:
  shop:
    name: shop-rewrap
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants:
          serviceAccounts: [ci-deployer]
`);
  const applied = await cli(['apply', dir, '--auto-approve'], { STRIPE_KEY: FIRST });
  expect(applied.code, applied.stderr).toBe(0);
  recordId = (await admin.listAll('listRecords', {})).find((r) => r.name === 'stripe-key')!.record_id;
  expect((await readAsServiceAccount()).stdout).toBe(`${FIRST}\n`);
});
afterAll(async () => {
  await admin.close();
  await emulator.close();
  rmSync(temp, { recursive: true, force: true });
});

it('is killed after the new value version was answered, before its re-wrap: the reader cannot read the new value yet', { timeout: 90_000 }, async () => {
  const killed = await cli(['apply', dir, '--auto-approve'], { STRIPE_KEY: SECOND, CPLANE_TEST_KILL_AFTER_OPERATION: 'createRecordVersion' });
  expect(killed.signal).toBe('SIGKILL');
  const read = await readAsServiceAccount();
  expect(read.code).not.toBe(0);
  expect(read.stdout).not.toContain(FIRST);
  expect(read.stdout).not.toContain(SECOND);
});

it('the next plan is truthful: the value write is pending, so it is not "No changes"', { timeout: 90_000 }, async () => {
  const plan = await cli(['plan', dir, '--detailed-exitcode'], { STRIPE_KEY: SECOND });
  expect(plan.code, plan.stderr).toBe(2);
  expect(plan.stdout).toMatch(/record\.shop\/stripe-key: createRecordVersion will be resent first/);
  expect(plan.stdout).not.toContain('No changes');
});

it('the next apply converges: the value is written again and re-wrapped, and the reader reads the NEW value', { timeout: 90_000 }, async () => {
  const rerun = await cli(['apply', dir, '--auto-approve'], { STRIPE_KEY: SECOND });
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stdout).toContain('re-wrapped for 1 reader');

  const read = await readAsServiceAccount();
  expect(read.stderr).toBe('');
  expect(read.stdout).toBe(`${SECOND}\n`);
  // Exactly one grant, for ci-deployer.
  expect((await liveRecord()).grants?.service_account_ids).toEqual([ciDeployer.id]);

  const again = await cli(['plan', dir, '--detailed-exitcode'], { STRIPE_KEY: SECOND });
  expect(again.code, again.stdout).toBe(0);
  expect(again.stdout).toContain('No changes');
});

it('leaves no value in plaintext in the state folder (state and journal)', () => {
  const files = (root: string): string[] => readdirSync(root).flatMap((name) => (statSync(join(root, name)).isDirectory() ? files(join(root, name)) : [join(root, name)]));
  const stored = files(join(dir, '.cplane')).map((path) => readFileSync(path, 'utf8'));
  expect(stored.length).toBeGreaterThan(0);
  for (const text of stored) for (const secret of [FIRST, SECOND, stateKey]) expect(text).not.toContain(secret);
});
