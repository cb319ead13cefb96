// A generated record's new values reach its readers (issues 21 and 22, through the real CLI and the emulator):
// `--replace` generates a new value and wraps it for the Service Account in the same apply; so does rotation when
// the live due date has passed; `rotateOnRevoke` rotates the value in the apply that removes a reader, who then
// cannot read; `destroy` revokes the grants before it archives the record.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { privateKeyOf } from '../helpers/readers.js';
import { runCli, type CliResult } from './helpers.js';

const acme = fixtures.accounts[0]!.id;
const ciDeployer = fixtures.serviceAccounts[0]!;
const dana = fixtures.users[2]!;
const stateKey = Buffer.alloc(32, 13).toString('base64');

let temp: string;
let dir: string;
let emulator: RunningEmulator;
let admin: ApiClient;
let recordId: string;
const seen: string[] = [];

const env = (token: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH, HOME: temp, XDG_CONFIG_HOME: join(temp, 'config'), NO_COLOR: '1',
  CPLANE_BASE_URL: emulator.url, CPLANE_ACCOUNT: acme, CPLANE_TOKEN: token, ...extra,
});
const cli = (args: string[]): Promise<CliResult> => runCli(args, env(fixtures.tokens.admin, { CPLANE_STATE_KEY: stateKey }), temp);

const config = (users: string, rotateOnRevoke = false) => writeFileSync(join(dir, 'main.yaml'), `version: 1
projects:
  shop:
    name: shop-rotation
    records:
      api-key:
        value: { generate: { length: 40 } }
        rotationIntervalDays: 30
        rotateOnRevoke: ${rotateOnRevoke}
        grants:
          serviceAccounts: [ci-deployer]
          users: ${users}
directory:
  users:
    dana: { id: ${dana.id}, publicKey: "${printableKeyPair(dana.id).publicKey}" }
`);

/** The value as ci-deployer reads it; it must be the value cplane itself reads, and a new one each time it is asked after a rotation. */
async function readAsServiceAccount(): Promise<string> {
  const run = await runCli(['read', '--record-id', recordId], env(fixtures.tokens.serviceAccount, { CPLANE_SA_KEY: privateKeyOf(ciDeployer.id) }), temp);
  expect(run.stderr).toBe('');
  const own = await runCli(['read', 'record.shop/api-key', dir], env(fixtures.tokens.admin, { CPLANE_STATE_KEY: stateKey }), temp);
  expect(run.stdout).toBe(own.stdout);
  return run.stdout;
}

async function expectNewValue(): Promise<void> {
  const value = await readAsServiceAccount();
  expect(value).toMatch(/^.{40}\n$/);
  expect(seen).not.toContain(value);
  seen.push(value);
}

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-rotation-'));
  dir = join(temp, 'infra');
  mkdirSync(dir);
  emulator = await startEmulator();
  admin = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme });
  config('[dana]');
  const apply = await cli(['apply', dir, '--auto-approve']);
  expect(apply.stderr).toBe('');
  recordId = (await admin.listAll('listRecords', {})).find((r) => r.name === 'api-key')!.record_id;
  await expectNewValue();
});
afterAll(async () => {
  await admin.close();
  await emulator.close();
  rmSync(temp, { recursive: true, force: true });
});

it('--replace generates a new value, wrapped for both readers in the same apply', async () => {
  const plan = await cli(['plan', dir, '--replace', 'record.shop/api-key']);
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(re-wrapped for 2 readers\)/);
  expect((await cli(['apply', dir, '--auto-approve', '--replace', 'record.shop/api-key'])).code).toBe(0);
  await expectNewValue();
});

it('rotation when due: the reader decrypts the new value', async () => {
  const moved = await cli(['api', 'updateRecord', '--param', `id=${recordId}`, '--body', JSON.stringify({ secretDueAt: '2020-01-01T00:00:00Z' })]);
  expect(moved.code).toBe(0);
  const plan = await cli(['plan', dir]);
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(rotate: due \d+ days ago; re-wrapped for 2 readers\)/);
  expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
  await expectNewValue();
});

it('rotateOnRevoke: removing a reader rotates the value in the same apply; the reader removed cannot read it', async () => {
  config('[]', true);
  const plan = await cli(['plan', dir]);
  expect(plan.stdout).toContain('# user_share.shop/api-key/dana will be revoked');
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(rotate: 1 reader removed; re-wrapped for 1 reader\)/);
  expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
  await expectNewValue();
  const dana = await runCli(['read', '--record-id', recordId], env(fixtures.tokens.recordOwner, { CPLANE_SA_KEY: privateKeyOf(fixtures.users[2]!.id) }), temp);
  expect(dana.code).toBe(1);
  expect(dana.stdout).toBe('');
  expect((await cli(['plan', dir, '--detailed-exitcode'])).code).toBe(0);
});

it('destroy revokes the grants before it archives the record', async () => {
  const run = await cli(['destroy', dir, '--auto-approve']);
  expect(run.code).toBe(0);
  const revokedAt = run.stdout.indexOf('service_account_grant.shop/api-key/ci-deployer');
  expect(revokedAt).toBeGreaterThan(-1);
  const record = await admin.call('getRecord', { path: { id: recordId } });
  expect(record.archived).toBe(true);
  expect(record.grants?.service_account_ids).toEqual([]);
});
