// Reading by name through a lying API server (test/helpers/lying-proxy.ts): the manifest decides, not the API. A
// record list that puts another record id under a name changes nothing (the read goes to the manifest's id);
// another record's value served for the id, or another account's wrapper made by the same writer, is refused. A new
// version whose wrap for this reader has not come yet (WRAP_OTHER_VERSION) keeps the last good value and is not taken
// as seen: the reader tries it again, and takes it once it can be read. Also: a refresh costs one request for every
// name, whatever their number, while nothing changes.
import { createReader, unwrapDataKey, wrapDataKey, type ReaderManifest, type WatchedVersion } from '@cplane/sdk';
import { writerKeyOf } from '@cplane/sdk/internal/writer-key';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deriveSubkey } from '../../src/crypto/state-key.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { valueDigest } from '../../src/crypto/record-value.js';
import { lyingProxy, type LyingProxy } from '../helpers/lying-proxy.js';
import { ciDeployerCredential, privateKeyOf, twoGrantedRecords } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const globex = fixtures.accounts[2]!.id;
const env = { STRIPE_KEY: 'sk_live_lying_reader_5120', DB_PASSWORD: 'db-lying-reader-8841' };
const configuration = twoGrantedRecords('payments-lying');

let w: World;
let proxy: LyingProxy;
let manifest: ReaderManifest;
const credential = ciDeployerCredential();
const idOf = (name: string) => manifest.deployments.default!.records[name]!.recordId;
/** A reader of the manifest through the proxy. */
const readerThroughProxy = (onError?: (error: Error, name: string) => void) =>
  createReader({
    manifest: { ...manifest, deployments: { default: { ...manifest.deployments.default!, baseUrl: proxy.url } } },
    credential,
    intervalMs: 0,
    ...(onError ? { onError } : {}),
  });
const codeOf = (error: unknown) => (error as { code?: string }).code;

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(configuration);
  expect((await w.run(['apply', w.dir, '--auto-approve'], env)).code).toBe(0);
  const written = await w.run(['reader-manifest', 'ci-deployer', w.dir]);
  expect(written.code, written.stderr).toBe(0);
  manifest = JSON.parse(written.stdout) as ReaderManifest;
  proxy = await lyingProxy(w.emulator.url);
});
afterAll(async () => {
  await proxy?.close();
  await w?.close();
});

it("a list naming another record id under the name changes nothing: the read goes to the manifest's id", async () => {
  const reads: string[] = [];
  proxy.setLie((request, answer) => {
    if (request.path.endsWith('/read')) reads.push(request.path);
    if (request.method !== 'GET' || request.path !== '/v1/records') return undefined;
    // Every row says it is stripe-key, at a newer version, under the other record's id.
    const rows = (answer.json as { data: { record_id: string; name: string; current_version: number }[] }).data;
    return {
      ok: true,
      data: rows.map((row) => ({
        ...row,
        name: 'stripe-key',
        record_id: row.record_id === idOf('payments/stripe-key') ? idOf('payments/db-password') : row.record_id,
        current_version: 9,
      })),
    };
  });
  const reader = readerThroughProxy();
  try {
    expect(await reader.get('payments/stripe-key')).toBe(env.STRIPE_KEY);
    await reader.refresh();
    expect(await reader.get('payments/stripe-key')).toBe(env.STRIPE_KEY);
    expect(new Set(reads)).toEqual(new Set([`/v1/records/${idOf('payments/stripe-key')}/read`]));
  } finally {
    proxy.setLie(undefined);
    await reader.close();
  }
});

it("another record's value served for the manifest's id is refused, naming the secret", async () => {
  // The Service Account's own view of db-password (its wrapper), served when stripe-key is asked for.
  let dbFields: unknown;
  proxy.setLie((request, answer) => {
    if (request.path === `/v1/records/${idOf('payments/db-password')}/read`)
      dbFields = (answer.json as { data: { fields: unknown } }).data.fields;
    if (request.path === `/v1/records/${idOf('payments/stripe-key')}/read`)
      return { ok: true, data: { record_id: idOf('payments/stripe-key'), fields: dbFields } };
    return undefined;
  });
  const reader = readerThroughProxy();
  try {
    expect(await reader.get('payments/db-password')).toBe(env.DB_PASSWORD);
    const refused = await reader.get('payments/stripe-key').then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(codeOf(refused)).toBe('WRAP_OPEN_FAILED');
    expect(refused!.message).toMatch(/^Secret "payments\/stripe-key": /);
    expect(refused!.message).not.toContain(env.DB_PASSWORD);
  } finally {
    proxy.setLie(undefined);
    await reader.close();
  }
});

it("another account's wrapper, made by the trusted writer for this reader, record and version, is refused", async () => {
  const writer = writerKeyOf(deriveSubkey(Buffer.from(w.env.CPLANE_STATE_KEY!, 'base64'), 'writer key'));
  const recordId = idOf('payments/stripe-key');
  proxy.setLie((request, answer) => {
    if (request.path !== `/v1/records/${recordId}/read`) return undefined;
    const data = (answer.json as { data: { fields: { version: number; ciphertext: string; wrapper: { wrappedDek: string } } } }).data;
    const { fields } = data;
    const digest = valueDigest(fields as never);
    const { dataKey } = unwrapDataKey({
      wrappedDek: fields.wrapper.wrappedDek,
      recipientPrivateKey: Buffer.from(privateKeyOf(ciDeployer.id), 'base64'),
      recordId,
      version: fields.version,
      valueDigest: digest,
      trustedWriters: [Buffer.from(writer.publicKey, 'base64')],
    });
    const wrappedDek = wrapDataKey({
      dataKey,
      recipientPublicKey: fixtureKeyPair(ciDeployer.id).publicKey,
      accountId: globex,
      recordId,
      version: fields.version,
      recipientId: ciDeployer.id,
      valueDigest: digest,
      writer: writer.sender,
      wrappedAt: new Date(),
    });
    return { ok: true, data: { ...data, fields: { ...fields, wrapper: { ...fields.wrapper, wrappedDek } } } };
  });
  const reader = readerThroughProxy();
  try {
    const refused = await reader.get('payments/stripe-key').then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(codeOf(refused)).toBe('WRAP_OTHER_ACCOUNT');
    expect(refused!.message).toContain(`for account ${globex}, not for ${acme}`);
  } finally {
    proxy.setLie(undefined);
    await reader.close();
  }
});

it('a new version not yet wrapped for the reader keeps the last good value, is reported, and is read once it can be', async () => {
  const errors: string[] = [];
  const changes: WatchedVersion[] = [];
  const reader = readerThroughProxy((error) => errors.push(`${codeOf(error)} ${error.message.split(':')[0]}`));
  try {
    expect(await reader.get('payments/stripe-key')).toBe(env.STRIPE_KEY);
    // The list says version 2, and the read gives a version 2 whose wrapper is still version 1's.
    proxy.setLie((request, answer) => {
      const data = (answer.json as { data: unknown }).data;
      if (request.method === 'GET' && request.path === '/v1/records')
        return { ok: true, data: (data as { current_version: number }[]).map((row) => ({ ...row, current_version: 2 })) };
      if (request.path === `/v1/records/${idOf('payments/stripe-key')}/read`) {
        const read = data as { fields: { version: number } };
        return { ok: true, data: { ...read, fields: { ...read.fields, version: 2 } } };
      }
      return undefined;
    });
    await reader.refresh();
    expect(errors).toEqual(['WRAP_OTHER_VERSION Secret "payments/stripe-key"']);
    expect(await reader.get('payments/stripe-key')).toBe(env.STRIPE_KEY);

    // The new value is written and wrapped for the reader (a real rotation, version 2): the same listed version is read now.
    proxy.setLie(undefined);
    const rotated = await w.run(['apply', w.dir, '--auto-approve'], { ...env, STRIPE_KEY: 'sk_live_lying_reader_rotated_7713' });
    expect(rotated.code, rotated.stderr).toBe(0);
    reader.watch('payments/stripe-key', (_value, read) => changes.push(read), { intervalMs: 60_000 });
    await reader.refresh();
    expect(await reader.get('payments/stripe-key')).toBe('sk_live_lying_reader_rotated_7713');
    expect(changes.map((c) => c.version)).toEqual([1, 2]);
  } finally {
    proxy.setLie(undefined);
    await reader.close();
  }
});

it('a refresh asks the record list once for every name watched, and reads nothing while nothing changes', async () => {
  const reader = readerThroughProxy();
  try {
    for (const name of ['payments/stripe-key', 'payments/db-password']) reader.watch(name, () => undefined, { intervalMs: 60_000 });
    await reader.refresh();
    w.emulator.resetStats();
    for (let i = 0; i < 5; i++) await reader.refresh();
    expect(w.emulator.stats().requests).toBe(5);
  } finally {
    await reader.close();
  }
});
