// A value version written by an apply is wrapped for the record's readers with the data key the apply made: no
// read of the record comes between the value write and the grants (bench/access.mjs: one request per write).
// A reader added later, with the value unchanged, gets the current data key from one read of the record. Each
// time, the Service Account reads the value with its own private key.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { fixtureKeyPair, printableKeyPair } from '../../src/emulator/keys.js';
import { readSecret } from '../../src/sdk/read-secret.js';
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
directory:
  groups:
    platform: { id: ${platform.id}, publicKey: "${printableKeyPair(platform.id).publicKey}" }
`;

/** Plans, then applies with the client's events of the apply alone; the operations it sent, in order. */
async function applyCounting(): Promise<string[]> {
  const plan = await h.plan();
  h.events.length = 0;
  const result = await h.apply(plan);
  expect(result.failed).toEqual([]);
  return h.events.flatMap((e) => (e.type === 'request' ? [e.operation] : []));
}

async function readAsServiceAccount(): Promise<string> {
  const recordId = h.state.data.resources['record.shop/stripe-key']!.id;
  const client = createClient({ baseUrl: h.emulator.url, token: fixtures.tokens.serviceAccount, accountId: acme });
  try {
    return await readSecret(client, { recordId, privateKey: fixtureKeyPair(ciDeployer.id).privateKey, readerId: ciDeployer.id });
  } finally {
    await client.close();
  }
}

describe('wrapping the data key of a value the apply wrote', () => {
  it('sends no read of the record for a new record or a new value version; a reader added later costs one read', async () => {
    h.config(config('serviceAccounts: [ci-deployer]'));
    expect(await applyCounting()).toEqual(['createProject', 'createRecord', 'grantServiceAccount']);
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
