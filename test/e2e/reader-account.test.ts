// A reader accepts a value only in the account it expects (issue 39, item 6). One configuration's writer key may
// serve several deployments, so a wrapper by the trusted writer proves who wrote the value, not for which account:
// a lying server (test/helpers/lying-proxy.ts) answers a prod reader's read with a value cplane wrote for staging
// (the same record id, wrapped for the same reader's key, by the same writer). The SDK and `cplane read` refuse it
// (WRAP_OTHER_ACCOUNT), and a Service Account token with no account to expect is refused before any read
// (ACCOUNT_REQUIRED): before the fix, it checked no account at all and returned staging's value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapDataKey } from '@cplane/sdk/internal/data-key-wrap';
import { writerKeyOf } from '@cplane/sdk/internal/writer-key';
import { createClient } from '../../src/api/index.js';
import { sealRecordValue } from '../../src/crypto/record-value.js';
import { deriveSubkey } from '../../src/crypto/state-key.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { readSecret } from '../../src/sdk/index.js';
import { lyingProxy, type LyingProxy, type ProxiedRequest } from '../helpers/lying-proxy.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const staging = fixtures.accounts[1]!.id;
const PROD_VALUE = 'sk_live_reader_account_prod_6613';
const STAGING_VALUE = 'sk_test_reader_account_staging_7724';

let w: World;
let proxy: LyingProxy;
let alpha: string;
const reads: ProxiedRequest[] = [];

/** What cplane, holding the same state key, wrote for `alpha` in the staging account: a genuine wrapper of its writer. */
function writtenForStaging(version: number): unknown {
  const binding = { accountId: staging, recordId: alpha, version };
  const { value, dataKey, digest } = sealRecordValue(new Uint8Array(32).fill(5), STAGING_VALUE, binding);
  const writer = writerKeyOf(deriveSubkey(Buffer.from(w.env.CPLANE_STATE_KEY!, 'base64'), 'writer key'));
  const wrappedDek = wrapDataKey({
    dataKey,
    recipientPublicKey: fixtureKeyPair(ciDeployer.id).publicKey,
    ...binding,
    recipientId: ciDeployer.id,
    valueDigest: digest,
    writer: writer.sender,
    wrappedAt: new Date(),
  });
  return {
    ok: true,
    data: { record_id: alpha, fields: { version, ciphertext: value.ciphertext, wrapper: { ...value.wrapper, wrappedDek } } },
  };
}

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  app:
    name: app-reader-account
    records:
      alpha: { value: { env: ALPHA }, grants: { serviceAccounts: [ci-deployer] } }
`);
  const apply = await w.run(['apply', w.dir, '--auto-approve'], { ALPHA: PROD_VALUE });
  expect(apply.stderr).toBe('');
  alpha = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'alpha')!.record_id;
  proxy = await lyingProxy(w.emulator.url, (request, answer) => {
    if (request.method !== 'POST' || request.path !== `/v1/records/${alpha}/read`) return undefined;
    reads.push(request);
    return writtenForStaging((answer.json as { data: { fields: { version: number } } }).data.fields.version);
  });
});
afterAll(async () => {
  await proxy?.close();
  await w?.close();
});

/** The SDK as ci-deployer through the lying server, trusting cplane's writer key; `accountId` as the client's. */
async function readWithSdk(accountId: string | undefined): Promise<string> {
  const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.serviceAccount, ...(accountId ? { accountId } : {}) });
  try {
    return await readSecret(client, { recordId: alpha, privateKey: fixtureKeyPair(ciDeployer.id).privateKey, writerKeys: [w.writerKey] });
  } finally {
    await client.close();
  }
}

describe('a value written for another account', () => {
  it('is refused by the SDK expecting its account: WRAP_OTHER_ACCOUNT, naming both accounts', async () => {
    await expect(readWithSdk(acme)).rejects.toMatchObject({
      name: 'WrapError',
      code: 'WRAP_OTHER_ACCOUNT',
      message: `The value of record ${alpha} was written for account ${staging}, not for ${acme}, the account this reader expects: the API returned another deployment's value.`,
    });
  });

  it('is never reached with a Service Account token and no account: ACCOUNT_REQUIRED before any read', async () => {
    const before = reads.length;
    await expect(readWithSdk(undefined)).rejects.toMatchObject({
      name: 'AccountError',
      code: 'ACCOUNT_REQUIRED',
      message: expect.stringContaining('give accountId'),
    });
    expect(reads.length).toBe(before);
  });

  it('is refused by `cplane read` and `cplane run` as the Service Account, with what to check; the honest answer reads', async () => {
    const env = { CPLANE_BASE_URL: proxy.url, CPLANE_SA_KEY: privateKeyOf(ciDeployer.id), CPLANE_ACCOUNT: acme };
    const read = await w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', alpha], env);
    expect(read.code).toBe(1);
    expect(read.stdout).toBe('');
    expect(read.stderr).toContain(
      `Error: WRAP_OTHER_ACCOUNT: The value of record ${alpha} was written for account ${staging}, not for ${acme}`,
    );
    expect(read.stderr).toContain('Check --account (or CPLANE_ACCOUNT)');
    const run = await w.cliAs(
      fixtures.tokens.serviceAccount,
      ['run', '--env', `A=${alpha}`, '--', process.execPath, '-e', 'process.stdout.write("started")'],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('WRAP_OTHER_ACCOUNT');
    const honest = await w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', alpha], {
      ...env,
      CPLANE_BASE_URL: w.emulator.url,
    });
    expect(honest.stderr).toBe('');
    expect(honest.stdout).toBe(`${PROD_VALUE}\n`);
    for (const output of [read.stdout, read.stderr, run.stdout, run.stderr]) expect(output).not.toContain(STAGING_VALUE);
  });
});
