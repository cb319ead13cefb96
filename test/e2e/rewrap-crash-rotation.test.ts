// A generated record granted to `ci-deployer` is due for rotation, and the apply is killed with SIGKILL right after
// the API answered the rotation, before the step re-wrapped the new data key for its reader. The due date moves only
// with the step's last write, so the next plan still sees the rotation due: the next apply resends the rotation with
// its key and rotates once more, wrapped for the reader, who then reads the value cplane itself reads.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
const stateKey = Buffer.alloc(32, 14).toString('base64');

let temp: string;
let dir: string;
let emulator: RunningEmulator;
let admin: ApiClient;
let recordId: string;
let firstValue: string;

const env = (token: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH, HOME: temp, XDG_CONFIG_HOME: join(temp, 'config'), NO_COLOR: '1',
  CPLANE_BASE_URL: emulator.url, CPLANE_ACCOUNT: acme, CPLANE_TOKEN: token, ...extra,
});
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(args, env(fixtures.tokens.admin, { CPLANE_STATE_KEY: stateKey, ...extra }), temp);
const readAsServiceAccount = () => runCli(['read', '--record-id', recordId], env(fixtures.tokens.serviceAccount, { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) }), temp);
const readAsCplane = () => cli(['read', 'record.shop/api-key', dir]);

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-rewrap-rotation-'));
  dir = join(temp, 'infra');
  mkdirSync(dir);
  emulator = await startEmulator();
  admin = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme });
  writeFileSync(join(dir, 'main.yaml'), `version: 1
projects:
  shop:
    name: shop-rewrap-rotation
    records:
      api-key:
        value: { generate: { length: 40 } }
        rotationIntervalDays: 30
        grants:
          serviceAccounts: [ci-deployer]
`);
  const applied = await cli(['apply', dir, '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  recordId = (await admin.listAll('listRecords', {})).find((r) => r.name === 'api-key')!.record_id;
  firstValue = (await readAsServiceAccount()).stdout;
  expect(firstValue).toMatch(/^.{40}\n$/);
  // Due since long ago: the next apply rotates it.
  expect((await cli(['api', 'updateRecord', '--param', `id=${recordId}`, '--body', JSON.stringify({ secretDueAt: '2020-01-01T00:00:00Z' })])).code).toBe(0);
});
afterAll(async () => {
  await admin.close();
  await emulator.close();
  rmSync(temp, { recursive: true, force: true });
});

it('is killed after the rotation was answered, before its re-wrap; the next plan is not "No changes"', { timeout: 90_000 }, async () => {
  const killed = await cli(['apply', dir, '--auto-approve'], { CPLANE_TEST_KILL_AFTER_OPERATION: 'rotateRecord' });
  expect(killed.signal).toBe('SIGKILL');
  const plan = await cli(['plan', dir, '--detailed-exitcode']);
  expect(plan.code, plan.stderr).toBe(2);
  expect(plan.stdout).toMatch(/record\.shop\/api-key: rotateRecord will be resent first/);
});

it('the next apply rotates and re-wraps: the reader reads the value cplane reads, a new one, with one grant', { timeout: 90_000 }, async () => {
  const rerun = await cli(['apply', dir, '--auto-approve']);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stdout).toMatch(/rotate: due \d+ days ago; re-wrapped for 1 reader/);

  const read = await readAsServiceAccount();
  expect(read.stderr).toBe('');
  expect(read.stdout).toMatch(/^.{40}\n$/);
  expect(read.stdout).not.toBe(firstValue);
  expect(read.stdout).toBe((await readAsCplane()).stdout);
  expect((await admin.listAll('listRecords', {})).find((r) => r.record_id === recordId)!.grants?.service_account_ids).toEqual([ciDeployer.id]);

  const again = await cli(['plan', dir, '--detailed-exitcode']);
  expect(again.code, again.stdout).toBe(0);
});

it('the same for a rotation asked with --replace: a plain apply after the kill rotates again and re-wraps', { timeout: 90_000 }, async () => {
  const before = (await readAsServiceAccount()).stdout;
  const killed = await cli(['apply', dir, '--auto-approve', '--replace', 'record.shop/api-key'], { CPLANE_TEST_KILL_AFTER_OPERATION: 'rotateRecord' });
  expect(killed.signal).toBe('SIGKILL');
  // Nothing due and no --replace now: only the mark the killed step left on the value says it is unfinished.
  const rerun = await cli(['apply', dir, '--auto-approve']);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stdout).toMatch(/re-wrapped for 1 reader/);

  const read = await readAsServiceAccount();
  expect(read.stderr).toBe('');
  expect(read.stdout).not.toBe(before);
  expect(read.stdout).toBe((await readAsCplane()).stdout);
  const again = await cli(['plan', dir, '--detailed-exitcode']);
  expect(again.code, again.stdout).toBe(0);
});
