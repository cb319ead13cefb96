// The API server is not trusted (docs/security.md): a lying proxy between cplane and the emulator stands for a
// compromised service, and every lie that the first end-to-end review found is refused, through the real CLI:
// 1. a Service Account key the API chooses (an inconsistent key id; a key other than the pinned one; an unpinned
//    key change, which is never silent);
// 2. a value the server made up and wrapped for the reader's public key (which is public);
// 3. an old version replayed after a rotation, to a reader and to an apply's key ring adding a reader;
// 4. another record's value returned for the record asked for, to `cplane read` and to an apply's key ring.
// Each test arranges its own world, so it runs alone.
import { afterEach, describe, expect, it } from 'vitest';
import { keyIdOf } from '@cplane/sdk/internal/key-id';
import { wrapDataKey } from '@cplane/sdk/internal/data-key-wrap';
import { generateKeyPair, recipientOf, sealBase } from '@cplane/sdk/internal/hpke';
import { sealRecordValue } from '../../src/crypto/record-value.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { createClient } from '../../src/api/index.js';
import { readSecret } from '../../src/sdk/index.js';
import { fixtureKeyPair } from '../../src/emulator/keys.js';
import { lyingProxy, type LyingProxy, type ProxiedRequest } from '../helpers/lying-proxy.js';
import { directoryYaml, privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const FIRST = 'sk_live_trust_first_1184';
const SECOND = 'sk_live_trust_second_2295';
const BETA = 'sk_live_trust_beta_3306';
const attacker = generateKeyPair();
const attackerKey = Buffer.from(attacker.publicKey).toString('base64');
const realKeyId = keyIdOf(fixtureKeyPair(ciDeployer.id).publicKey);

let w: World;
let proxy: LyingProxy;
afterEach(async () => {
  await proxy?.close();
  await w?.close();
});

/** Records `alpha` (granted to ci-deployer) and `beta` (granted to `betaGrants`, if given), then `extra`. */
function atkConfig(options: { betaGrants?: string; extra?: string }): string {
  const betaGrants = options.betaGrants ? `, grants: ${options.betaGrants}` : '';
  return `version: 1
projects:
  atk:
    name: atk-trust
    records:
      alpha: { value: { env: ALPHA }, grants: { serviceAccounts: [ci-deployer] } }
      beta: { value: { env: BETA }${betaGrants} }
${options.extra ?? ''}`;
}

/**
 * A world with records `alpha` (granted to ci-deployer) and `beta` (granted to `betaGrants`, if given), applied
 * honestly, and a proxy in front of its emulator; `extra` is appended to the configuration.
 */
async function arrange(options: { betaGrants?: string; extra?: string } = {}): Promise<{ alpha: string; beta: string }> {
  w = await world({ account: acme });
  proxy = await lyingProxy(w.emulator.url);
  w.config(atkConfig(options));
  const apply = await w.run(['apply', w.dir, '--auto-approve'], { ALPHA: FIRST, BETA });
  expect(apply.stderr).toBe('');
  const ids = (await w.client.listAll('listRecords', {})).filter((r) => r.name === 'alpha' || r.name === 'beta');
  return { alpha: ids.find((r) => r.name === 'alpha')!.record_id, beta: ids.find((r) => r.name === 'beta')!.record_id };
}

/** The SDK as ci-deployer, through the proxy, trusting cplane's writer key. */
async function readWithSdk(recordId: string): Promise<string> {
  const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.serviceAccount, accountId: acme });
  try {
    return await readSecret(client, { recordId, privateKey: fixtureKeyPair(ciDeployer.id).privateKey, writerKeys: [w.writerKey] });
  } finally {
    await client.close();
  }
}

const viaProxy = () => ({ CPLANE_BASE_URL: proxy.url });
const isList = (r: ProxiedRequest) => r.method === 'GET' && r.path === '/v1/service-accounts';
const isRead = (r: ProxiedRequest, recordId: string) => r.method === 'POST' && r.path === `/v1/records/${recordId}/read`;
/** The service-accounts answer with ci-deployer's key replaced by the attacker's (its key id as given, or made consistent). */
function swapKey(json: unknown, consistent: boolean): unknown {
  const envelope = json as { data: { service_account_id: string; public_key: string; key_id: string }[] };
  for (const sa of envelope.data) {
    if (sa.service_account_id !== ciDeployer.id) continue;
    sa.public_key = attackerKey;
    if (consistent) sa.key_id = keyIdOf(attacker.publicKey);
  }
  return envelope;
}
const readAsServiceAccount = (recordId: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  w.cliAs(fixtures.tokens.serviceAccount, ['read', '--record-id', recordId, ...args], {
    CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
    ...viaProxy(),
    ...env,
  });

describe('1. the API cannot choose the key a record is wrapped for', () => {
  it("refuses a Service Account whose listed key id is not its public key's", async () => {
    await arrange();
    proxy.setLie((r, a) => (isList(r) ? swapKey(a.json, false) : undefined));
    const plan = await w.cli(['plan', w.dir, '--json'], { ALPHA: FIRST, BETA, ...viaProxy() });
    expect(plan.code).toBe(1);
    expect(JSON.parse(plan.stdout).diagnostics).toContainEqual(expect.objectContaining({ code: 'service_account_key_id_mismatch' }));
  });

  it('refuses a key other than the pinned one, at the pin, giving both key ids', async () => {
    await arrange({ extra: `directory:\n  serviceAccounts:\n    ci-deployer: { keyId: "${realKeyId}" }\n` });
    proxy.setLie((r, a) => (isList(r) ? swapKey(a.json, true) : undefined));
    const plan = await w.cli(['plan', w.dir], { ALPHA: FIRST, BETA, ...viaProxy() });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /main\.yaml:10:27: error: service_account_grant.atk\/alpha\/ci-deployer: .*the Service Account "ci-deployer" is offered with the key x25519:[0-9a-f]{16}, and its pinned key is x25519:[0-9a-f]{16}/,
    );
    expect(plan.stderr).toContain(keyIdOf(attacker.publicKey));
    expect(plan.stderr).toContain(realKeyId);
    // The honest API with the same pin: no change.
    const honest = await w.cli(['plan', w.dir, '--detailed-exitcode'], { ALPHA: FIRST, BETA });
    expect(honest.stdout).toContain('No changes');
  });

  it('shows an unpinned key change as a change of the grant, with a warning, never silently', async () => {
    await arrange();
    proxy.setLie((r, a) => (isList(r) ? swapKey(a.json, true) : undefined));
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode'], { ALPHA: FIRST, BETA, ...viaProxy() });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(`~ readerKey = "${realKeyId}" -> "${keyIdOf(attacker.publicKey)}"`);
    expect(plan.stdout).toContain('only a pin in directory.serviceAccounts makes this safe');
    expect(plan.stdout).toContain('it is not pinned, so the API could have chosen it');
  });

  it('export writes the pins of the Service Accounts the records are granted to', async () => {
    await arrange();
    const out = `${w.temp}/exported`;
    const run = await w.cli(['export', '--out', out]);
    expect(run.code).toBe(0);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(`${out}/main.yaml`, 'utf8')).toMatch(
      new RegExp(`serviceAccounts:\\n\\s+ci-deployer:\\n\\s+keyId: ${realKeyId.replace(':', ':')}`),
    );
  });
});

describe('2. the server cannot make a reader accept a value it made up', () => {
  /** The attacker's forgery of alpha's current value: its own data key and value, wrapped for ci-deployer. */
  function forge(recordId: string, version: number, claimWriter: string | undefined): unknown {
    const { value, dataKey, digest } = sealRecordValue(new Uint8Array(32).fill(1), 'forged by the server', {
      accountId: acme,
      recordId,
      version,
    });
    const sender = recipientOf(generateKeyPair().privateKey);
    const wrapped = wrapDataKey({
      dataKey,
      recipientPublicKey: fixtureKeyPair(ciDeployer.id).publicKey,
      accountId: acme,
      recordId,
      version,
      recipientId: ciDeployer.id,
      valueDigest: digest,
      writer: sender,
      wrappedAt: new Date(),
    });
    const parts = wrapped.split('.');
    if (claimWriter) parts[5] = Buffer.from(claimWriter, 'base64').toString('base64url');
    return {
      ok: true,
      data: {
        record_id: recordId,
        fields: { version, ciphertext: value.ciphertext, wrapper: { ...value.wrapper, wrappedDek: parts.join('.') } },
      },
    };
  }

  it("refuses a forged wrapper from another writer, or one claiming cplane's writer key, and reads the honest value", async () => {
    const { alpha } = await arrange();
    const honest = await readAsServiceAccount(alpha);
    expect(honest.stderr).toBe('');
    expect(honest.stdout).toBe(`${FIRST}\n`);

    proxy.setLie((r) => (isRead(r, alpha) ? forge(alpha, 1, undefined) : undefined));
    const stranger = await readAsServiceAccount(alpha);
    expect(stranger.code).toBe(1);
    expect(stranger.stdout).toBe('');
    expect(stranger.stderr).toContain('WRAP_UNTRUSTED_WRITER');

    proxy.setLie((r) => (isRead(r, alpha) ? forge(alpha, 1, w.writerKey) : undefined));
    const impostor = await readAsServiceAccount(alpha);
    expect(impostor.code).toBe(1);
    expect(impostor.stdout).toBe('');
    expect(impostor.stderr).toContain('WRAP_OPEN_FAILED');

    // The SDK, through the same lying server.
    await expect(readWithSdk(alpha)).rejects.toMatchObject({ code: 'WRAP_OPEN_FAILED' });
    proxy.setLie((r) => (isRead(r, alpha) ? forge(alpha, 1, undefined) : undefined));
    await expect(readWithSdk(alpha)).rejects.toMatchObject({ code: 'WRAP_UNTRUSTED_WRITER' });
    proxy.setLie(undefined);
    expect(await readWithSdk(alpha)).toBe(FIRST);
  });

  it('refuses a wrapper of the first, unauthenticated format (HPKE base mode)', async () => {
    const { alpha } = await arrange();
    proxy.setLie((r, a) => {
      if (!isRead(r, alpha)) return undefined;
      const envelope = a.json as { data: { fields: { wrapper: { wrappedDek: string } } } };
      const sealed = sealBase(
        fixtureKeyPair(ciDeployer.id).publicKey,
        new TextEncoder().encode('cplane/data-key-wrap/v1'),
        new Uint8Array(0),
        new Uint8Array(32),
      );
      envelope.data.fields.wrapper.wrappedDek = [
        'cplane-hpke1',
        '1',
        ciDeployer.id,
        realKeyId,
        Buffer.from(sealed.enc).toString('base64url'),
        Buffer.from(sealed.ct).toString('base64url'),
      ].join('.');
      return envelope;
    });
    const run = await readAsServiceAccount(alpha);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('WRAP_UNTRUSTED_WRITER');
    expect(run.stderr).toContain('cplane apply --rewrap');
  });

  it('needs a writer key, and says how to get one; `cplane writer-key` prints it', async () => {
    const { alpha } = await arrange();
    const none = await readAsServiceAccount(alpha, [], { CPLANE_WRITER_KEY: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no writer key was given');
    expect(none.stderr).toContain('cplane writer-key');
    const printed = await w.cli(['writer-key', w.dir]);
    expect(printed.stdout).toBe(`${w.writerKey}\n`);
    const json = JSON.parse((await w.cli(['writer-key', w.dir, '--json'])).stdout);
    expect(json).toEqual({ publicKey: w.writerKey, keyId: keyIdOf(Buffer.from(w.writerKey, 'base64')), account: acme });
    const wrongKey = await readAsServiceAccount(alpha, ['--writer-key', attackerKey], { CPLANE_WRITER_KEY: '' });
    expect(wrongKey.stderr).toContain('WRAP_UNTRUSTED_WRITER');
    const bad = await readAsServiceAccount(alpha, ['--writer-key', 'x25519:0011223344556677']);
    expect(bad.stderr).toContain('not base64 of a 32-byte X25519 public key');
  });
});

describe('3. an old version replayed after a rotation is refused', () => {
  it('by `cplane read --min-version`, and by the SDK once it has read a newer version', async () => {
    const { alpha } = await arrange();
    // What the server saw of version 1 (ciphertext and ci-deployer's wrapper), replayed after version 2.
    let v1: unknown;
    proxy.setLie((r, a) => {
      if (isRead(r, alpha) && r.token === fixtures.tokens.serviceAccount) v1 = a.json;
      return undefined;
    });
    expect((await readAsServiceAccount(alpha)).stdout).toBe(`${FIRST}\n`);
    expect((await w.run(['apply', w.dir, '--auto-approve'], { ALPHA: SECOND, BETA })).code).toBe(0);

    const client = createClient({ baseUrl: proxy.url, token: fixtures.tokens.serviceAccount, accountId: acme });
    try {
      const options = { recordId: alpha, privateKey: fixtureKeyPair(ciDeployer.id).privateKey, writerKeys: [w.writerKey] };
      proxy.setLie(undefined);
      expect(await readSecret(client, options)).toBe(SECOND);
      proxy.setLie((r) => (isRead(r, alpha) ? v1 : undefined));
      await expect(readSecret(client, options)).rejects.toMatchObject({ code: 'WRAP_ROLLBACK' });
    } finally {
      await client.close();
    }
    const replayed = await readAsServiceAccount(alpha, ['--min-version', '2']);
    expect(replayed.code).toBe(1);
    expect(replayed.stdout).toBe('');
    expect(replayed.stderr).toContain('WRAP_ROLLBACK');
    expect(replayed.stderr).toMatch(/version 1 \(wrapped \d{4}-\d\d-\d\dT[\d:.]+Z\), older than version 2/);
    proxy.setLie(undefined);
    expect((await readAsServiceAccount(alpha, ['--min-version', '2'])).stdout).toBe(`${SECOND}\n`);
  });
});

describe("3b. an old version replayed to an apply's key ring is refused", () => {
  it('adding a reader after a rotation: the key ring refuses version 1 when state recorded version 2, naming the record, and wraps nothing', async () => {
    const { alpha } = await arrange();
    // What the server saw of version 1 when cplane read it, replayed after version 2.
    let v1: unknown;
    const capture = createClient({ baseUrl: proxy.url, token: fixtures.tokens.admin, accountId: acme });
    proxy.setLie((r, a) => {
      if (isRead(r, alpha)) v1 = a.json;
      return undefined;
    });
    await capture.call('readRecord', { path: { id: alpha }, body: { scope: ['fields'] } });
    await capture.close();
    expect((await w.run(['apply', w.dir, '--auto-approve'], { ALPHA: SECOND, BETA })).code).toBe(0);

    const dana = fixtures.users[2]!;
    const withDana = atkConfig({ extra: directoryYaml({ users: { dana: dana.id } }) }).replace(
      'grants: { serviceAccounts: [ci-deployer] }',
      'grants: { serviceAccounts: [ci-deployer], users: [dana] }',
    );
    w.config(withDana);
    const wraps: unknown[] = [];
    proxy.setLie((r) => {
      if (r.method !== 'GET' && JSON.stringify(r.body ?? null).includes('wrappedDek')) wraps.push(r.body);
      return isRead(r, alpha) ? v1 : undefined;
    });
    const apply = await w.cli(['apply', w.dir, '--auto-approve'], { ALPHA: SECOND, BETA, ...viaProxy() });
    expect(apply.code).toBe(1);
    // Not sent at all (the emulator would refuse a wrapper of an old version; a lying server would keep it).
    expect(wraps).toEqual([]);
    expect(apply.stderr + apply.stdout).toContain(
      `The value of record ${alpha} the API returned is version 1, older than version 2 that cplane wrote and state recorded`,
    );
    expect((await w.client.call('getRecord', { path: { id: alpha } })).grants?.user_ids).toEqual([]);

    // The honest API: dana is granted version 2.
    proxy.setLie(undefined);
    const honest = await w.cli(['apply', w.dir, '--auto-approve'], { ALPHA: SECOND, BETA });
    expect(honest.code, honest.stderr).toBe(0);
    expect((await w.client.call('getRecord', { path: { id: alpha } })).grants?.user_ids).toEqual([dana.id]);
  });
});

describe("4. another record's value returned for the record asked for is refused", () => {
  /** Answers reads of `asked` with the fields of `given` (as the same caller would get them). */
  const swap = (asked: string, given: string) => {
    let fieldsOfGiven: unknown;
    return async (token: string) => {
      const client = createClient({ baseUrl: w.emulator.url, token, accountId: acme });
      fieldsOfGiven = (await client.call('readRecord', { path: { id: given }, body: { scope: ['fields'] } })).fields;
      await client.close();
      proxy.setLie((r, a) => (isRead(r, asked) ? { ...(a.json as object), data: { record_id: asked, fields: fieldsOfGiven } } : undefined));
    };
  };

  it('by `cplane read` as cplane, naming the record', async () => {
    const { alpha, beta } = await arrange();
    await swap(alpha, beta)(fixtures.tokens.admin);
    const run = await w.cli(['read', 'record.atk/alpha', w.dir], viaProxy());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`WRAP_VALUE_MISMATCH: The value of record ${alpha} does not match its wrapper`);
  });

  it('by a reader, whose wrapper is bound to the record', async () => {
    // beta granted to ci-deployer too, so the server holds a wrapper of beta for it.
    const { alpha, beta } = await arrange({ betaGrants: '{ serviceAccounts: [ci-deployer] }' });
    await swap(alpha, beta)(fixtures.tokens.serviceAccount);
    const run = await readAsServiceAccount(alpha);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('WRAP_OPEN_FAILED');
    await expect(readWithSdk(alpha)).rejects.toMatchObject({ code: 'WRAP_OPEN_FAILED' });
  });

  it("by an apply's key ring: no grant on one record carries another record's data key", async () => {
    const { alpha, beta } = await arrange();
    // beta gets a reader; the lying server answers the key ring's read of beta with alpha's value.
    const dana = fixtures.users[2]!;
    w.config(atkConfig({ betaGrants: '{ users: [dana] }', extra: directoryYaml({ users: { dana: dana.id } }) }));
    await swap(beta, alpha)(fixtures.tokens.admin);
    const apply = await w.cli(['apply', w.dir, '--auto-approve'], { ALPHA: FIRST, BETA, ...viaProxy() });
    expect(apply.code).toBe(1);
    expect(apply.stderr + apply.stdout).toContain(`The value of record ${beta} does not match its wrapper`);
    expect((await w.client.call('getRecord', { path: { id: beta } })).grants?.user_ids).toEqual([]);
  });
});
