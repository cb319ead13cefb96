// A value version written by an apply is wrapped for the record's readers with the data key the apply made: no
// read of the record comes between the value write and the grants (bench/access.mjs: one request per write).
// A reader added later, with the value unchanged, gets the current data key from one read of the record. Each
// time, the Service Account reads the value with its own private key. An answer that names another record than
// the one written (the API is not trusted) leaves nothing kept for that record.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { applyPlan, stateKeyRing } from '../../src/applier/index.js';
import { resolveSecret } from '../../src/config/index.js';
import { unwrapDataKey } from '@cplane/sdk/internal/data-key-wrap';
import { readSecret } from '@cplane/sdk/internal/read-secret';
import { valueDigest } from '../../src/crypto/record-value.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { directoryYaml } from '../helpers/readers.js';
import { harness, type Harness } from './harness.js';

const acme = fixtures.accounts[0]!.id;
const ciDeployer = fixtures.serviceAccounts[0]!;
const platform = fixtures.groups.find((g) => g.name === 'platform')!;

let h: Harness;
beforeEach(async () => {
  h = await harness({ account: acme });
});
afterEach(async () => h.close());

const config = (readers: string) => `
projects:
  shop:
    name: shop-wrap-without-read
    records:
      stripe-key:
        value: { env: STRIPE }
        grants: { ${readers} }
${directoryYaml({ groups: { platform: platform.id } })}`;

/** Plans, then applies with the client's events of the apply alone; the operations it sent, in order. */
async function applyCounting(): Promise<string[]> {
  const plan = await h.plan();
  h.events.length = 0;
  const result = await h.apply(plan);
  expect(result.failed).toEqual([]);
  return h.events.flatMap((e) => (e.type === 'request' ? [e.operation] : []));
}

async function readAsServiceAccount(address = 'record.shop/stripe-key'): Promise<string> {
  const recordId = h.state.data.resources[address]!.id;
  const client = createClient({ baseUrl: h.emulator.url, token: fixtures.tokens.serviceAccount, accountId: acme });
  try {
    return await readSecret(client, {
      recordId,
      privateKey: fixtureKeyPair(ciDeployer.id).privateKey,
      readerId: ciDeployer.id,
      writerKeys: [(await h.state.crypto.writerKey()).publicKey],
    });
  } finally {
    await client.close();
  }
}

describe('wrapping the data key of a value the apply wrote', () => {
  it('sends no read of the record for a new record or a new value version; a reader added later costs one read', async () => {
    h.config(config('serviceAccounts: [ci-deployer]'));
    expect(await applyCounting()).toEqual(['createProject', 'createRecord', 'createRecordVersion', 'grantServiceAccount']);
    expect(await readAsServiceAccount()).toBe(h.env.STRIPE);

    h.env.STRIPE = 'stripe-planner-plaintext-second-version';
    expect(await applyCounting()).toEqual(['createRecordVersion', 'grantServiceAccount']);
    expect(await readAsServiceAccount()).toBe('stripe-planner-plaintext-second-version');

    h.config(config('serviceAccounts: [ci-deployer], groups: [platform]'));
    const operations = await applyCounting();
    expect(operations.filter((o) => o === 'readRecord')).toHaveLength(1);
    expect(operations.at(-1)).toBe('shareRecordWithGroup');
  });
});

/** A proxy in front of the emulator that rewrites the `record_id` of every answer to a new value version. */
async function rewritingProxy(target: string, recordId: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const upstream = request(new URL(req.url!, target), { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        let text = Buffer.concat(chunks).toString('utf8');
        if (req.method === 'POST' && /\/records\/[^/]+\/version$/.test(req.url!.split('?')[0]!)) {
          const envelope = JSON.parse(text) as { data?: { record_id?: string } };
          if (envelope.data) envelope.data.record_id = recordId;
          text = JSON.stringify(envelope);
        }
        const { 'transfer-encoding': _chunked, ...headers } = answer.headers;
        res.writeHead(answer.statusCode!, { ...headers, 'content-length': Buffer.byteLength(text) });
        res.end(text);
      });
    });
    req.pipe(upstream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

describe('an answer naming another record', () => {
  it("does not make the key ring wrap this value's data key for that record", async () => {
    h.config(`
projects:
  shop:
    name: shop-wrap-hostile
    records:
      one: { value: { env: STRIPE }, grants: { serviceAccounts: [ci-deployer] } }
      two: { value: { env: OPENAI_KEY }, grants: { serviceAccounts: [ci-deployer] } }
`);
    await h.converge();
    const one = h.state.data.resources['record.shop/one']!.id;
    const two = h.state.data.resources['record.shop/two']!.id;
    h.env.STRIPE = 'stripe-planner-plaintext-hostile-version';
    const plan = await h.plan();
    const proxy = await rewritingProxy(h.emulator.url, two);
    const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.admin, accountId: acme });
    try {
      const keyRing = stateKeyRing(h.state, (source) => resolveSecret(source, h.env), client);
      const result = await applyPlan({ plan, state: h.state, client, keyRing });
      expect(result.failed).toEqual([]);
      // Record two's data key, wrapped by the same key ring after the apply, is two's own (from a read), not one's new one.
      const wrapped = await keyRing.wrap({
        recordId: two,
        recipientId: ciDeployer.id,
        publicKey: Buffer.from(fixtureKeyPair(ciDeployer.id).publicKey).toString('base64'),
      });
      const read = await h.client.call('readRecord', { path: { id: two }, body: { scope: ['fields'] } });
      const { dataKey } = unwrapDataKey({
        wrappedDek: wrapped,
        recipientPrivateKey: fixtureKeyPair(ciDeployer.id).privateKey,
        recordId: two,
        version: read.fields!.version,
        recipientId: ciDeployer.id,
        valueDigest: valueDigest(read.fields!),
        trustedWriters: 'any',
      });
      expect(
        Buffer.from(dataKey).equals(
          Buffer.from(h.state.crypto.openRecordDataKey(read.fields!, { accountId: acme, recordId: two, version: read.fields!.version })),
        ),
      ).toBe(true);
      expect(await readAsServiceAccount('record.shop/one')).toBe('stripe-planner-plaintext-hostile-version');
      expect(await readAsServiceAccount('record.shop/two')).toBe(h.env.OPENAI_KEY);
      expect(one).not.toBe(two);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});
