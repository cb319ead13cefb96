// Reading a secret as its readers, through the real CLI: cplane applies a record; the record is granted to the
// fixture Service Account with the SDK's wrap function and the typed client (the `grants` configuration comes
// later); `cplane read` then prints the value for the Service Account (token + private key) and for cplane itself
// (PAT + state key), refuses a key file others can read, fails with the API's reason without a grant, and the
// value and the private keys appear nowhere else: not in other output, the state folder or the service's data.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wrapDataKey } from '../../src/sdk/index.js';
import { openDataKey, recordKek, valueDigest } from '../../src/crypto/record-value.js';
import { deriveSubkey } from '../../src/crypto/state-key.js';
import { writerKeyOf } from '@cplane/sdk/internal/writer-key';
import { fixtures } from '../../src/emulator/fixtures.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type CliResult, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const STRIPE_KEY = 'sk_live_e2e_read_value_7731';
const OTHER_KEY = 'sk_live_e2e_never_granted_9902';
const values = { STRIPE_KEY, OTHER_KEY };
const saKey = privateKeyOf(ciDeployer.id);

let w: World;
const stateKey = () => Buffer.from(w.env.CPLANE_STATE_KEY!, 'base64');
/** What the key-wrapping step of apply does: cplane's data key of the record, wrapped for a reader under cplane's writer key. */
async function wrapAsCplane(id: string, readerId: string, readerPublicKey: Uint8Array): Promise<string> {
  const fields = (await w.client.call('readRecord', { path: { id }, body: { scope: ['fields'] } })).fields!;
  const place = { accountId: acme, recordId: id, version: fields.version };
  const dataKey = openDataKey(recordKek(stateKey()), fields, place);
  const writer = writerKeyOf(deriveSubkey(stateKey(), 'writer key')).sender;
  return wrapDataKey({
    dataKey,
    recipientPublicKey: readerPublicKey,
    ...place,
    recipientId: readerId,
    valueDigest: valueDigest(fields),
    writer,
    wrappedAt: new Date(),
  });
}

/**
 * `cplane read` as a reader (`token`). A run that prints a value is not kept for the leak scan at the end; one
 * that must print none (`keep`) is. `inProcess`: the CLI's entry in this process, as `cliAs` would run it (for
 * the leak scan's arrangement).
 */
async function read(token: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, keep = false, inProcess = false): Promise<CliResult> {
  const { CPLANE_STATE_KEY: _stateKey, ...readerEnv } = w.env;
  const run = inProcess
    ? {
        ...(await runInProcess(
          ['read', ...args],
          { ...readerEnv, CPLANE_TOKEN: token, CPLANE_WRITER_KEY: w.writerKey, ...extraEnv },
          w.temp,
        )),
        signal: null,
      }
    : await w.cliAs(token, ['read', ...args], extraEnv);
  if (keep) w.outputs.push(run.stdout, run.stderr);
  return run;
}
/** cplane itself reading by address: its PAT and the state key. */
const readAsCplane = (address: string, keep = false) =>
  read(fixtures.tokens.admin, [address, w.dir], { CPLANE_STATE_KEY: w.env.CPLANE_STATE_KEY }, keep);

async function recordId(name: string): Promise<string> {
  const records = await w.client.listAll('listRecords', {});
  return records.find((r) => r.name === name)!.record_id;
}

/**
 * What the key-wrapping step of apply will do: open cplane's own wrapper with the state key, wrap the data key
 * for the reader's public key as GET /service-accounts lists it, and grant.
 */
async function grantedToCiDeployer(id: string): Promise<void> {
  const sa = (await w.client.call('listServiceAccounts', { query: { accountId: acme } })).find((s) => s.name === 'ci-deployer')!;
  const wrappedDek = await wrapAsCplane(id, sa.service_account_id, Buffer.from(sa.public_key, 'base64'));
  await w.client.call('grantServiceAccount', { path: { id: sa.service_account_id }, body: { recordId: id, wrappedDek } });
}

/** Shares the record with Dana and with group platform, each wrapped for its own key. */
async function sharedWithDanaAndPlatform(id: string): Promise<void> {
  const [dana, platform] = [fixtures.users[2]!, fixtures.groups[0]!];
  const wrapFor = (readerId: string) => wrapAsCplane(id, readerId, fixtureKeyPair(readerId).publicKey);
  await w.client.call('shareRecordWithUser', { path: { id }, body: { userId: dana.id, wrappedDek: await wrapFor(dana.id) } });
  await w.client.call('shareRecordWithGroup', { path: { id }, body: { groupId: platform.id, wrappedDek: await wrapFor(platform.id) } });
}

// Each test arranges its own world, the records applied in-process (the CLI's entry, no subprocess); the read
// under test runs the real CLI. The leak scan runs the earlier tests' grants, shares and refused reads itself, in
// a world whose emulator saves its data (`dataFile`), which the other tests need not pay for.
async function seeded(options: { dataFile?: boolean } = {}): Promise<void> {
  w = await world({ account: acme, ...options });
  w.config(`version: 1
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
  const apply = await w.run(['apply', w.dir, '--auto-approve'], values);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
}
afterEach(async () => w.close());

describe('cplane read', () => {
  beforeEach(async () => seeded());

  it('prints the value for the Service Account once the record is granted to it with the SDK', async () => {
    const id = await recordId('stripe-key');
    await grantedToCiDeployer(id);

    const run = await read(fixtures.tokens.serviceAccount, ['--record-id', id], { CPLANE_SA_KEY: saKey });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${STRIPE_KEY}\n`);
  });

  it('is what the SDK example does: an application reads the secret through `cplane/sdk` (the package export)', async () => {
    const example = join(import.meta.dirname, '..', '..', 'examples', 'sdk', 'read-secret.mjs');
    await grantedToCiDeployer(await recordId('stripe-key'));
    const env: NodeJS.ProcessEnv = {
      ...w.env,
      CPLANE_TOKEN: fixtures.tokens.serviceAccount,
      CPLANE_SA_KEY: saKey,
      CPLANE_WRITER_KEY: w.writerKey,
      RECORD_ID: await recordId('stripe-key'),
    };
    delete env.CPLANE_STATE_KEY; // the application has its own key, never cplane's
    // Asynchronously: the emulator answers from this process.
    const run = await promisify(execFile)(process.execPath, [example], { env, encoding: 'utf8' });
    w.outputs.push(run.stdout, run.stderr);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`read the secret (${STRIPE_KEY.length} characters)\n`);
  });

  it('takes the key from --key-file only when no one else can read the file', async () => {
    const id = await recordId('stripe-key');
    await grantedToCiDeployer(id);
    const keyFile = join(w.temp, 'ci-deployer.key');
    writeFileSync(keyFile, `${saKey}\n`, { mode: 0o644 });
    chmodSync(keyFile, 0o644);
    const open = await read(fixtures.tokens.serviceAccount, ['--record-id', id, '--key-file', keyFile], {}, true);
    expect(open.code).toBe(1);
    expect(open.stdout).toBe('');
    expect(open.stderr).toContain(`The key file ${keyFile} can be read by others (mode 644)`);
    expect(open.stderr).toContain(`chmod 600 ${keyFile}`);

    chmodSync(keyFile, 0o600);
    const run = await read(fixtures.tokens.serviceAccount, ['--record-id', id, '--key-file', keyFile]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${STRIPE_KEY}\n`);
  });

  it("fails with the API's reason and request id for a record not granted to the Service Account", async () => {
    const run = await read(fixtures.tokens.serviceAccount, ['--record-id', await recordId('other-key')], { CPLANE_SA_KEY: saKey }, true);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^Error: Record [0-9a-f-]{36} is not granted to this reader: the API answered 409 service_account_grant_not_found, request id req_[0-9a-f-]+\.\n/,
    );
    expect(run.stderr).toContain('Ask an owner of the record to grant it to this reader');
  });

  it('without CPLANE_ACCOUNT: a Service Account is told to name the account (ACCOUNT_REQUIRED); a person in several accounts is told to choose, by name', async () => {
    const id = await recordId('stripe-key');
    await grantedToCiDeployer(id);
    const own = await read(fixtures.tokens.serviceAccount, ['--record-id', id], { CPLANE_SA_KEY: saKey, CPLANE_ACCOUNT: '' }, true);
    expect(own.code).toBe(1);
    expect(own.stdout).toBe('');
    expect(own.stderr).toContain('Error: ACCOUNT_REQUIRED: A Service Account token reads only with the account it expects its values in');
    expect(own.stderr).toContain('Pass --account ID or set CPLANE_ACCOUNT');
    // Ada is in two accounts: which one holds the record is hers to say.
    const ada = fixtures.users[0]!;
    const several = await read(
      fixtures.tokens.admin,
      ['--record-id', id],
      { CPLANE_SA_KEY: privateKeyOf(ada.id), CPLANE_ACCOUNT: '' },
      true,
    );
    expect(several.code).toBe(1);
    expect(several.stdout).toBe('');
    const names = fixtures.accounts.filter((a) => ada.memberships.some((m) => m.accountId === a.id)).map((a) => `${a.name} (${a.id})`);
    expect(several.stderr).toContain(
      `Error: ACCOUNT_AMBIGUOUS: The token can act in 2 accounts (${names.join(', ')}), so which one holds the record is not known: give accountId.`,
    );
    expect(several.stderr).toContain('Pass --account ID or set CPLANE_ACCOUNT');
  });

  it('says what to do when a Service Account gives no key', async () => {
    const run = await read(fixtures.tokens.serviceAccount, ['--record-id', await recordId('stripe-key')], {}, true);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('A Service Account reads a record with its private key, and none was given.');
    expect(run.stderr).toContain('CPLANE_SA_KEY');
  });

  it('prints the value for cplane itself, by address, with the PAT and the state key', async () => {
    const run = await readAsCplane('record.shop/stripe-key');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${STRIPE_KEY}\n`);
    const other = await readAsCplane('record.shop/other-key');
    expect(other.stdout).toBe(`${OTHER_KEY}\n`);
  });

  it('prints the value for a user it is shared with, and for a member of a group it is shared with, each with its own key', async () => {
    const id = await recordId('stripe-key');
    const [dana, platform] = [fixtures.users[2]!, fixtures.groups[0]!];
    await sharedWithDanaAndPlatform(id);
    const danaToken = fixtures.tokens.recordOwner;
    const direct = await read(danaToken, ['--record-id', id], { CPLANE_SA_KEY: privateKeyOf(dana.id) });
    expect(direct.stderr).toBe('');
    expect(direct.stdout).toBe(`${STRIPE_KEY}\n`);
    // Dana is in one account: without CPLANE_ACCOUNT, `GET /accounts` names it.
    const discovered = await read(danaToken, ['--record-id', id], { CPLANE_SA_KEY: privateKeyOf(dana.id), CPLANE_ACCOUNT: '' });
    expect(discovered.stderr).toBe('');
    expect(discovered.stdout).toBe(`${STRIPE_KEY}\n`);
    // Without her direct share, Dana gets the wrapper of her group, which the group's key opens (and hers does not).
    await w.client.call('revokeRecordUser', { path: { id }, body: { userId: dana.id } });
    const groupKey = join(w.temp, 'platform.key');
    writeFileSync(groupKey, privateKeyOf(platform.id), { mode: 0o600 });
    const viaGroup = await read(danaToken, ['--record-id', id, '--key-file', groupKey]);
    expect(viaGroup.stdout).toBe(`${STRIPE_KEY}\n`);
    const ownKey = await read(danaToken, ['--record-id', id], { CPLANE_SA_KEY: privateKeyOf(dana.id) }, true);
    expect(ownKey.code).toBe(1);
    expect(ownKey.stderr).toContain("it is another reader's key");
  });

  it('names an address that is not a record of the state', async () => {
    const run = await readAsCplane('record.shop/nope', true);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('record.shop/nope is not a record in the state');
  });
});

describe('cplane read, its leak scan', () => {
  beforeEach(async () => seeded({ dataFile: true }));

  it("leaks neither the values nor the private keys: not in other output, the state folder or the service's data", async () => {
    // The story so far, in-process: the grant and shares, and every read above that must print no value.
    const id = await recordId('stripe-key');
    await grantedToCiDeployer(id);
    await sharedWithDanaAndPlatform(id);
    const [ada, dana] = [fixtures.users[0]!, fixtures.users[2]!];
    const openKeyFile = join(w.temp, 'ci-deployer.key');
    writeFileSync(openKeyFile, `${saKey}\n`, { mode: 0o644 });
    chmodSync(openKeyFile, 0o644);
    await read(fixtures.tokens.serviceAccount, ['--record-id', id, '--key-file', openKeyFile], {}, true, true);
    await read(fixtures.tokens.serviceAccount, ['--record-id', await recordId('other-key')], { CPLANE_SA_KEY: saKey }, true, true);
    await read(fixtures.tokens.admin, ['--record-id', id], { CPLANE_SA_KEY: privateKeyOf(ada.id), CPLANE_ACCOUNT: '' }, true, true);
    await read(fixtures.tokens.serviceAccount, ['--record-id', id], {}, true, true);
    await w.client.call('revokeRecordUser', { path: { id }, body: { userId: dana.id } });
    await read(fixtures.tokens.recordOwner, ['--record-id', id], { CPLANE_SA_KEY: privateKeyOf(dana.id) }, true, true);
    await read(fixtures.tokens.admin, ['record.shop/nope', w.dir], { CPLANE_STATE_KEY: w.env.CPLANE_STATE_KEY }, true, true);
    await w.cli(['plan', w.dir], values);
    // The service's data file (written by the emulator on every change) and everything under the state folder.
    const stored = await w.stored();
    expect(stored.length).toBeGreaterThan(1);
    const privateKeys = [saKey, ...fixtures.users.map((u) => privateKeyOf(u.id)), ...fixtures.groups.map((g) => privateKeyOf(g.id))];
    for (const text of [...w.outputs, ...stored]) {
      for (const secret of [STRIPE_KEY, OTHER_KEY, ...privateKeys, w.env.CPLANE_STATE_KEY!]) expect(text).not.toContain(secret);
    }
  });
});
