// "Wrapper valid" (spec: a grant needs one): over real HTTP the emulator refuses a grant or share whose wrapper
// does not open with the recipient's key, a wrapper of an older value version, and a share to a user without a
// key; it accepts a real wrapper, lists readers' public keys and the ids of who holds a grant, and hands a
// Service Account the data key wrapped for it, which its private key opens.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { keyIdOf } from '@cplane/sdk/internal/key-id';
import { sealRecordValue } from '../../src/crypto/record-value.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { readSecret } from '../../src/sdk/index.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';
import { testWriter, wrapperFor, type ValuePlace } from '../helpers/readers.js';

const emulator = withEmulator();
const acme = fixtures.accounts[0]!.id;
const project = fixtures.projects[0]!.id;
const ciDeployer = fixtures.serviceAccounts[0]!.id;
const globexBot = fixtures.serviceAccounts[2]!.id;
const [ada, rex, dana] = fixtures.users.map((u) => u.id) as [string, string, string];
const platform = fixtures.groups[0]!.id;
const kek = randomBytes(32);
let admin: ApiClient;

beforeAll(() => {
  admin = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
});
afterAll(() => admin.close());

/** A record with one value encrypted as cplane encrypts it (bound to the new record, version 1); returns its id, data key and place. */
async function newRecord(name: string, plaintext = `value of ${name}`): Promise<{ id: string; dataKey: Uint8Array; place: ValuePlace }> {
  const { record_id: id } = await admin.call('createRecord', { body: { projectId: project, name } });
  const { value, dataKey, digest } = sealRecordValue(kek, plaintext, { accountId: acme, recordId: id, version: 1 });
  await admin.call('createRecordVersion', { path: { id }, body: value });
  return { id, dataKey, place: { accountId: acme, recordId: id, version: 1, digest } };
}

/** Writes version 2 of the record. */
const secondVersion = async (id: string, plaintext: string) =>
  admin.call('createRecordVersion', {
    path: { id },
    body: sealRecordValue(kek, plaintext, { accountId: acme, recordId: id, version: 2 }).value,
  });
const readAs = (sa: ApiClient, id: string, privateKey: Uint8Array, more: { readerId?: string } = {}) =>
  readSecret(sa, { recordId: id, privateKey, writerKeys: [testWriter.publicKey], ...more });

describe("readers' keys", () => {
  it('lists each Service Account with its fixed X25519 public key and key id', async () => {
    const accounts = await admin.call('listServiceAccounts', { query: { accountId: acme } });
    const ci = accounts.find((s) => s.name === 'ci-deployer')!;
    expect(ci).toMatchObject({ status: 'active', public_key: Buffer.from(fixtureKeyPair(ciDeployer).publicKey).toString('base64') });
    expect(ci.key_id).toBe(keyIdOf(fixtureKeyPair(ciDeployer).publicKey));
    expect(accounts.find((s) => s.name === 'legacy-bot')).toMatchObject({
      status: 'inactive',
      key_id: expect.stringMatching(/^x25519:[0-9a-f]{16}$/),
    });
  });
});

describe('a grant or share whose wrapper does not open is refused', () => {
  it('refuses a fake wrapper (400 invalid_wrapper) for a Service Account, a user and a group', async () => {
    const { id } = await newRecord('fake-wrapper');
    const fake = 'not-a-real-wrapper';
    await expect(
      admin.call('grantServiceAccount', { path: { id: ciDeployer }, body: { recordId: id, wrappedDek: fake } }),
    ).rejects.toMatchObject({ status: 400, reason: 'invalid_wrapper' });
    await expect(admin.call('shareRecordWithUser', { path: { id }, body: { userId: dana, wrappedDek: fake } })).rejects.toMatchObject({
      status: 400,
      reason: 'invalid_wrapper',
    });
    await expect(admin.call('shareRecordWithGroup', { path: { id }, body: { groupId: platform, wrappedDek: fake } })).rejects.toMatchObject(
      { status: 400, reason: 'invalid_wrapper' },
    );
    expect((await admin.call('getRecord', { path: { id } })).grants).toEqual({ user_ids: [], group_ids: [], service_account_ids: [] });
  });

  it('refuses a well-formed wrapper made for another reader, or for another record', async () => {
    const { id, place } = await newRecord('other-reader');
    const { place: other } = await newRecord('other-record');
    // Made for globex-bot's key, posted as ci-deployer's grant: it does not open with ci-deployer's key.
    const forGlobex = wrapperFor(place, globexBot).replace(globexBot, ciDeployer);
    await expect(
      admin.call('grantServiceAccount', { path: { id: ciDeployer }, body: { recordId: id, wrappedDek: forGlobex } }),
    ).rejects.toMatchObject({ status: 400, reason: 'invalid_wrapper' });
    await expect(
      admin.call('grantServiceAccount', { path: { id: ciDeployer }, body: { recordId: id, wrappedDek: wrapperFor(other, ciDeployer) } }),
    ).rejects.toMatchObject({ status: 400, reason: 'invalid_wrapper' });
    await expect(
      admin.call('shareRecordWithUser', { path: { id }, body: { userId: dana, wrappedDek: wrapperFor(place, ada) } }),
    ).rejects.toMatchObject({ status: 400, reason: 'invalid_wrapper' });
    // Made for this record and reader, but for another value (digest) or account: it does not open either.
    await expect(
      admin.call('grantServiceAccount', {
        path: { id: ciDeployer },
        body: { recordId: id, wrappedDek: wrapperFor({ ...place, digest: other.digest }, ciDeployer) },
      }),
    ).rejects.toMatchObject({ status: 400, reason: 'invalid_wrapper' });
    await expect(
      admin.call('grantServiceAccount', {
        path: { id: ciDeployer },
        body: { recordId: id, wrappedDek: wrapperFor({ ...place, accountId: fixtures.accounts[2]!.id }, ciDeployer) },
      }),
    ).rejects.toMatchObject({ status: 400, reason: 'invalid_wrapper' });
  });

  it('refuses a wrapper of an older value version (409 key_version_conflict)', async () => {
    const { id, place } = await newRecord('versions');
    await secondVersion(id, 'second');
    await expect(
      admin.call('grantServiceAccount', { path: { id: ciDeployer }, body: { recordId: id, wrappedDek: wrapperFor(place, ciDeployer) } }),
    ).rejects.toMatchObject({ status: 409, reason: 'key_version_conflict' });
  });

  it('refuses a share to a user who has no key (400 recipient_public_key_not_found)', async () => {
    const { id, place } = await newRecord('keyless');
    await expect(
      admin.call('shareRecordWithUser', { path: { id }, body: { userId: rex, wrappedDek: wrapperFor(place, rex) } }),
    ).rejects.toMatchObject({
      status: 400,
      reason: 'recipient_public_key_not_found',
    });
  });
});

describe('a valid wrapper', () => {
  it("is accepted, shows in the record's grants (ids only), and the Service Account decrypts the value with its key", async () => {
    const { id, dataKey, place } = await newRecord('granted', 'sk_live_granted_4242');
    await admin.call('grantServiceAccount', {
      path: { id: ciDeployer },
      body: { recordId: id, wrappedDek: wrapperFor(place, ciDeployer, dataKey) },
    });
    await admin.call('shareRecordWithUser', { path: { id }, body: { userId: dana, wrappedDek: wrapperFor(place, dana, dataKey) } });
    await admin.call('shareRecordWithGroup', {
      path: { id },
      body: { groupId: platform, wrappedDek: wrapperFor(place, platform, dataKey) },
    });
    const meta = await admin.call('getRecord', { path: { id } });
    expect(meta.grants).toEqual({ user_ids: [dana], group_ids: [platform], service_account_ids: [ciDeployer] });

    const sa = createClient({ baseUrl: emulator().url, token: fixtures.tokens.serviceAccount, accountId: acme, retry: { maxAttempts: 1 } });
    try {
      expect(await readAs(sa, id, fixtureKeyPair(ciDeployer).privateKey, { readerId: ciDeployer })).toBe('sk_live_granted_4242');
      // Another reader's key does not open ci-deployer's wrapper, and says so by key id.
      await expect(readAs(sa, id, fixtureKeyPair(globexBot).privateKey)).rejects.toMatchObject({ code: 'WRAP_OTHER_KEY' });
      // No writer key trusted (left out, or an unset variable split on commas): refused, saying who hands one out (never a CLI command).
      for (const writerKeys of [undefined, [''], []]) {
        await expect(
          readSecret(sa, {
            recordId: id,
            privateKey: fixtureKeyPair(ciDeployer).privateKey,
            writerKeys: writerKeys as unknown as string[],
          }),
        ).rejects.toMatchObject({
          code: 'WRAP_UNTRUSTED_WRITER',
          message: expect.stringMatching(/^No writer key is trusted.*its owner hands it out[^`]*$/),
        });
      }
    } finally {
      await sa.close();
    }
  });

  it('is stale once the value changes: the reader is told the new version has not been wrapped for it', async () => {
    const { id, dataKey, place } = await newRecord('stale');
    await admin.call('grantServiceAccount', {
      path: { id: ciDeployer },
      body: { recordId: id, wrappedDek: wrapperFor(place, ciDeployer, dataKey) },
    });
    await secondVersion(id, 'rotated');
    const sa = createClient({ baseUrl: emulator().url, token: fixtures.tokens.serviceAccount, accountId: acme, retry: { maxAttempts: 1 } });
    try {
      await expect(readAs(sa, id, fixtureKeyPair(ciDeployer).privateKey)).rejects.toMatchObject({ code: 'WRAP_OTHER_VERSION' });
    } finally {
      await sa.close();
    }
  });
});
