// Reading a secret as its readers, through the real CLI: cplane applies a record; the record is granted to the
// fixture Service Account with the SDK's wrap function and the typed client (the `grants` configuration comes
// later); `cplane read` then prints the value for the Service Account (token + private key) and for cplane itself
// (PAT + state key), refuses a key file others can read, fails with the API's reason without a grant, and the
// value and the private keys appear nowhere else: not in other output, the state folder or the service's data.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, wrapDataKey, type ApiClient } from '../../src/sdk/index.js';
import { openDataKey, recordKek } from '../../src/crypto/record-value.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { privateKeyOf } from '../helpers/readers.js';
import { runCli, type CliResult } from './helpers.js';

const acme = fixtures.accounts[0]!.id;
const ciDeployer = fixtures.serviceAccounts[0]!;
const stateKey = Buffer.alloc(32, 7);
const STRIPE_KEY = 'sk_live_e2e_read_value_7731';
const OTHER_KEY = 'sk_live_e2e_never_granted_9902';
const saKey = privateKeyOf(ciDeployer.id);

let temp: string;
let dir: string;
let emulator: RunningEmulator;
let admin: ApiClient;
/** Every CLI answer, to scan for leaks at the end (the reads' own stdout is checked apart). */
const outputs: string[] = [];

const baseEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: temp,
  XDG_CONFIG_HOME: join(temp, 'config'),
  CPLANE_BASE_URL: emulator.url,
  CPLANE_ACCOUNT: acme,
  NO_COLOR: '1',
});
const asCplane = { CPLANE_TOKEN: fixtures.tokens.admin, CPLANE_STATE_KEY: stateKey.toString('base64'), STRIPE_KEY, OTHER_KEY };
const asServiceAccount = { CPLANE_TOKEN: fixtures.tokens.serviceAccount };

async function cli(args: string[], env: NodeJS.ProcessEnv, keep = true): Promise<CliResult> {
  const run = await runCli(args, { ...baseEnv(), ...env }, temp);
  if (keep) outputs.push(run.stdout, run.stderr);
  return run;
}

async function recordId(name: string): Promise<string> {
  const records = await admin.listAll('listRecords', {});
  return records.find((r) => r.name === name)!.record_id;
}

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-read-'));
  dir = join(temp, 'infra');
  mkdirSync(dir);
  emulator = await startEmulator({ dataFile: join(temp, 'emulator-data.json') });
  admin = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme });
  writeFileSync(join(dir, 'main.yaml'), `version: 1
projects:
  shop:
    name: shop-readers
    description: Shop
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
      other-key:
        value: { env: OTHER_KEY }
`);
  const apply = await cli(['apply', dir, '--auto-approve'], asCplane);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
});
afterAll(async () => {
  await admin.close();
  await emulator.close();
  rmSync(temp, { recursive: true, force: true });
});

describe('cplane read', () => {
  it('prints the value for the Service Account once the record is granted to it with the SDK', async () => {
    const id = await recordId('stripe-key');
    // What the key-wrapping step of apply will do: open cplane's own wrapper with the state key, wrap the data
    // key for the reader's public key as GET /service-accounts lists it, and grant.
    const read = await admin.call('readRecord', { path: { id }, body: { scope: ['fields'] } });
    const dataKey = openDataKey(recordKek(stateKey), read.fields!);
    const sa = (await admin.call('listServiceAccounts', { query: { accountId: acme } })).find((s) => s.name === 'ci-deployer')!;
    const wrappedDek = wrapDataKey({ dataKey, recipientPublicKey: Buffer.from(sa.public_key, 'base64'), recordId: id, version: read.fields!.version, recipientId: sa.service_account_id });
    await admin.call('grantServiceAccount', { path: { id: sa.service_account_id }, body: { recordId: id, wrappedDek } });

    const run = await cli(['read', '--record-id', id], { ...asServiceAccount, CPLANE_SA_KEY: saKey }, false);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${STRIPE_KEY}\n`);
  });

  it('is what the SDK example does: an application reads the secret through `cplane/sdk` (the package export)', async () => {
    const example = join(import.meta.dirname, '..', '..', 'examples', 'sdk', 'read-secret.mjs');
    const env = { ...baseEnv(), ...asServiceAccount, CPLANE_SA_KEY: saKey, RECORD_ID: await recordId('stripe-key') };
    // Asynchronously: the emulator answers from this process.
    const run = await promisify(execFile)(process.execPath, [example], { env, encoding: 'utf8' });
    outputs.push(run.stdout, run.stderr);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`read the secret (${STRIPE_KEY.length} characters)\n`);
  });

  it('takes the key from --key-file only when no one else can read the file', async () => {
    const id = await recordId('stripe-key');
    const keyFile = join(temp, 'ci-deployer.key');
    writeFileSync(keyFile, `${saKey}\n`, { mode: 0o644 });
    chmodSync(keyFile, 0o644);
    const open = await cli(['read', '--record-id', id, '--key-file', keyFile], asServiceAccount);
    expect(open.code).toBe(1);
    expect(open.stdout).toBe('');
    expect(open.stderr).toContain(`The key file ${keyFile} can be read by others (mode 644)`);
    expect(open.stderr).toContain(`chmod 600 ${keyFile}`);

    chmodSync(keyFile, 0o600);
    const run = await cli(['read', '--record-id', id, '--key-file', keyFile], asServiceAccount, false);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${STRIPE_KEY}\n`);
  });

  it('fails with the API\'s reason and request id for a record not granted to the Service Account', async () => {
    const run = await cli(['read', '--record-id', await recordId('other-key')], { ...asServiceAccount, CPLANE_SA_KEY: saKey });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Error: Record [0-9a-f-]{36} is not granted to this reader: the API answered 409 service_account_grant_not_found, request id req_[0-9a-f-]+\.\n/);
    expect(run.stderr).toContain('Ask an owner of the record to grant it to this reader');
  });

  it('says what to do when a Service Account gives no key', async () => {
    const run = await cli(['read', '--record-id', await recordId('stripe-key')], asServiceAccount);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('A Service Account reads a record with its private key, and none was given.');
    expect(run.stderr).toContain('CPLANE_SA_KEY');
  });

  it('prints the value for cplane itself, by address, with the PAT and the state key', async () => {
    const run = await cli(['read', 'record.shop/stripe-key', dir], asCplane, false);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${STRIPE_KEY}\n`);
    const other = await cli(['read', 'record.shop/other-key', dir], asCplane, false);
    expect(other.stdout).toBe(`${OTHER_KEY}\n`);
  });

  it('prints the value for a user it is shared with, and for a member of a group it is shared with, each with its own key', async () => {
    const id = await recordId('stripe-key');
    const read = await admin.call('readRecord', { path: { id }, body: { scope: ['fields'] } });
    const dataKey = openDataKey(recordKek(stateKey), read.fields!);
    const [dana, platform] = [fixtures.users[2]!, fixtures.groups[0]!];
    const wrapFor = (readerId: string) => wrapDataKey({ dataKey, recipientPublicKey: fixtureKeyPair(readerId).publicKey, recordId: id, version: read.fields!.version, recipientId: readerId });
    await admin.call('shareRecordWithUser', { path: { id }, body: { userId: dana.id, wrappedDek: wrapFor(dana.id) } });
    await admin.call('shareRecordWithGroup', { path: { id }, body: { groupId: platform.id, wrappedDek: wrapFor(platform.id) } });
    const asDana = { CPLANE_TOKEN: fixtures.tokens.recordOwner };
    const direct = await cli(['read', '--record-id', id], { ...asDana, CPLANE_SA_KEY: privateKeyOf(dana.id) }, false);
    expect(direct.stderr).toBe('');
    expect(direct.stdout).toBe(`${STRIPE_KEY}\n`);
    // Without her direct share, Dana gets the wrapper of her group, which the group's key opens (and hers does not).
    await admin.call('revokeRecordUser', { path: { id }, body: { userId: dana.id } });
    const groupKey = join(temp, 'platform.key');
    writeFileSync(groupKey, privateKeyOf(platform.id), { mode: 0o600 });
    const viaGroup = await cli(['read', '--record-id', id, '--key-file', groupKey], asDana, false);
    expect(viaGroup.stdout).toBe(`${STRIPE_KEY}\n`);
    const ownKey = await cli(['read', '--record-id', id], { ...asDana, CPLANE_SA_KEY: privateKeyOf(dana.id) });
    expect(ownKey.code).toBe(1);
    expect(ownKey.stderr).toContain('it is another reader\'s key');
  });

  it('names an address that is not a record of the state', async () => {
    const run = await cli(['read', 'record.shop/nope', dir], asCplane);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('record.shop/nope is not a record in the state');
  });

  it('leaks neither the values nor the private keys: not in other output, the state folder or the service\'s data', async () => {
    await cli(['plan', dir], asCplane);
    await emulator.close();
    const files = (root: string): string[] =>
      readdirSync(root).flatMap((name) => {
        const path = join(root, name);
        return statSync(path).isDirectory() ? files(path) : [path];
      });
    // The service's data file (written by the emulator on every change) and everything under the state folder.
    const stored = [join(temp, 'emulator-data.json'), ...files(join(dir, '.cplane'))].map((path) => readFileSync(path, 'utf8'));
    expect(stored.length).toBeGreaterThan(1);
    const privateKeys = [saKey, ...fixtures.users.map((u) => privateKeyOf(u.id)), ...fixtures.groups.map((g) => privateKeyOf(g.id))];
    for (const text of [...outputs, ...stored]) {
      for (const secret of [STRIPE_KEY, OTHER_KEY, ...privateKeys, stateKey.toString('base64')]) expect(text).not.toContain(secret);
    }
    emulator = await startEmulator();
  });
});
