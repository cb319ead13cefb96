// Cross-language vectors of a reader's checks, written by the TypeScript writer and reader: values sealed as cplane
// seals them (src/crypto/record-value.ts), data keys wrapped for a reader as an apply wraps them (@cplane/sdk
// wrapDataKey, HPKE auth mode), each case with what the TypeScript reader answers: the value, or the error code.
// test/sdk/reader-vectors.test.ts checks the committed JSON still opens so in TypeScript (and writes it anew with
// WRITE_READER_VECTORS=1); packages/python/tests/test_cross_language.py checks Python answers the same.
import { encodeReaderCredential, keyIdOf, wrapDataKey } from '@cplane/sdk';
import { deriveKeyPair, recipientOf } from '@cplane/sdk/internal/hpke';
import { sealRecordValue } from '../../src/crypto/record-value.js';

export interface ReaderVector {
  case: string;
  recordId: string;
  accountId: string;
  readerId: string;
  readerPrivateKey: string;
  writerKeys: string[];
  minVersion?: number;
  fields: { version: number; ciphertext: string; wrapper: { alg: string; keyId: string; wrappedDek: string; nonce?: string } };
  expect: { value: string; version: number; writerKeyId: string } | { code: string };
}

export interface ReaderVectors {
  about: string;
  cases: ReaderVector[];
  credentials: { token: string; privateKey: string; credential: string }[];
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const pair = (seed: string) => deriveKeyPair(new TextEncoder().encode(`cplane reader vectors: ${seed} (a public test value)`));

export function makeReaderVectors(): ReaderVectors {
  const writer = pair('writer');
  const otherWriter = pair('another writer');
  const reader = pair('reader');
  const otherReader = pair('another reader');
  const kek = pair('state kek').privateKey;
  const account = '0a000000-0000-4000-8000-000000000001';
  const otherAccount = '0a000000-0000-4000-8000-000000000003';
  const readerId = '0e000000-0000-4000-8000-000000000001';
  const recordA = '1c000000-0000-4000-8000-00000000000a';
  const recordB = '1c000000-0000-4000-8000-00000000000b';
  const wrappedAt = new Date('2026-12-01T00:00:00Z');

  const sealFor = (
    plaintext: string,
    place: { recordId: string; version: number; accountId?: string },
    wrap: { accountId?: string; version?: number; writer?: typeof writer; recipientPublicKey?: Uint8Array; recordId?: string } = {},
    bindingVersion = place.version,
  ) => {
    const accountId = place.accountId ?? account;
    const { value, dataKey, digest } = sealRecordValue(kek, plaintext, { accountId, recordId: place.recordId, version: bindingVersion });
    const wrappedDek = wrapDataKey({
      dataKey,
      recipientPublicKey: wrap.recipientPublicKey ?? reader.publicKey,
      accountId: wrap.accountId ?? accountId,
      recordId: wrap.recordId ?? place.recordId,
      version: wrap.version ?? place.version,
      recipientId: readerId,
      valueDigest: digest,
      writer: recipientOf((wrap.writer ?? writer).privateKey),
      wrappedAt,
    });
    return { version: place.version, ciphertext: value.ciphertext, wrapper: { ...value.wrapper, wrappedDek } };
  };
  const base = { accountId: account, readerId, readerPrivateKey: b64(reader.privateKey), writerKeys: [b64(writer.publicKey)] };
  const ok = (value: string, version: number) => ({ value, version, writerKeyId: keyIdOf(writer.publicKey) });
  const a2 = sealFor('sk_live_vector_A_v2', { recordId: recordA, version: 2 });
  const b1 = sealFor('db-password-vector-B', { recordId: recordB, version: 1 });
  const unbound = sealFor('unbound', { recordId: recordA, version: 2 });

  const cases: ReaderVector[] = [
    { case: 'a value opens', recordId: recordA, ...base, fields: a2, expect: ok('sk_live_vector_A_v2', 2) },
    {
      case: 'a value of letters beyond ASCII opens',
      recordId: recordA,
      ...base,
      fields: sealFor('pässwörd ✓ 秘密', { recordId: recordA, version: 3 }),
      expect: ok('pässwörd ✓ 秘密', 3),
    },
    {
      case: "another record's value and wrapper, served for this record",
      recordId: recordA,
      ...base,
      fields: b1,
      expect: { code: 'WRAP_OPEN_FAILED' },
    },
    {
      case: "another account's value, wrapped by the trusted writer",
      recordId: recordA,
      ...base,
      fields: sealFor('staging value', { recordId: recordA, version: 2, accountId: otherAccount }),
      expect: { code: 'WRAP_OTHER_ACCOUNT' },
    },
    {
      case: 'an older version than one already read',
      recordId: recordA,
      ...base,
      minVersion: 3,
      fields: a2,
      expect: { code: 'WRAP_ROLLBACK' },
    },
    {
      case: 'a wrapper made by a writer the reader does not pin',
      recordId: recordA,
      ...base,
      fields: sealFor('forged', { recordId: recordA, version: 2 }, { writer: otherWriter }),
      expect: { code: 'WRAP_UNTRUSTED_WRITER' },
    },
    {
      case: 'a new value not yet wrapped for this reader (the renewal window)',
      recordId: recordA,
      ...base,
      fields: { ...sealFor('new', { recordId: recordA, version: 3 }, { version: 2 }) },
      expect: { code: 'WRAP_OTHER_VERSION' },
    },
    {
      case: "a wrapper for another reader's key",
      recordId: recordA,
      ...base,
      fields: sealFor('other key', { recordId: recordA, version: 2 }, { recipientPublicKey: otherReader.publicKey }),
      expect: { code: 'WRAP_OTHER_KEY' },
    },
    {
      case: 'a value sealed for another version than its wrapper says',
      recordId: recordA,
      ...base,
      fields: sealFor('mismatch', { recordId: recordA, version: 2 }, {}, 1),
      expect: { code: 'WRAP_VALUE_MISMATCH' },
    },
    {
      case: 'a value of the first format, bound to no record',
      recordId: recordA,
      ...base,
      fields: { ...unbound, wrapper: { ...unbound.wrapper, alg: 'xchacha20poly1305+kek-hkdf-sha256/v1' } },
      expect: { code: 'WRAP_UNBOUND_VALUE' },
    },
    {
      case: 'a wrapper of the first, unauthenticated format',
      recordId: recordA,
      ...base,
      fields: { ...a2, wrapper: { ...a2.wrapper, wrappedDek: a2.wrapper.wrappedDek.replace(/^cplane-hpke2/, 'cplane-hpke1') } },
      expect: { code: 'WRAP_UNTRUSTED_WRITER' },
    },
    {
      case: 'a wrapper cut short',
      recordId: recordA,
      ...base,
      fields: { ...a2, wrapper: { ...a2.wrapper, wrappedDek: a2.wrapper.wrappedDek.split('.').slice(0, 8).join('.') } },
      expect: { code: 'WRAP_MALFORMED' },
    },
  ];
  const credentials = [pair('credential 1'), pair('credential 2')].map((key, i) => {
    const token = `sk-svc-sa-vector-${i}.with.dots`;
    return { token, privateKey: b64(key.privateKey), credential: encodeReaderCredential({ token, privateKey: key.privateKey }) };
  });
  return {
    about:
      'Written by test/sdk/reader-vectors.ts (WRITE_READER_VECTORS=1 npx vitest run test/sdk/reader-vectors.test.ts); read by the TypeScript and Python tests. Public test values.',
    cases,
    credentials,
  };
}
