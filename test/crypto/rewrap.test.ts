// A value cplane encrypted with its state key can be wrapped again for a reader later, without the plaintext:
// cplane's own wrapper gives the data key back (openRecordDataKey) for the place the value is bound to, wrapDataKey
// wraps it for the reader's public key under cplane's writer key, and the reader alone decrypts the value, from
// that writer only. A new value version has a new data key, so an old reader's wrapper does not open it; a value
// the API returns for another record or version is refused by cplane before any wrap, and by the reader.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { wrapDataKey } from '@cplane/sdk/internal/data-key-wrap';
import { generateKeyPair } from '@cplane/sdk/internal/hpke';
import { decryptAsReader } from '@cplane/sdk/internal/read-value';
import { valueDigest } from '../../src/crypto/record-value.js';
import { createStateCrypto, stateKeys } from '../../src/state/state-crypto.js';

const keys = stateKeys(new Uint8Array(randomBytes(32)));
const crypto = createStateCrypto(
  () => keys,
  { account: 'a', lineage: 'l' },
  (address) => address,
);
const reader = generateKeyPair();
const accountId = '0a000000-0000-4000-8000-000000000001';
const recordId = '1b000000-0000-4000-8000-000000000009';
const otherRecordId = '1b000000-0000-4000-8000-000000000010';
const readerId = '0e000000-0000-4000-8000-000000000001';
const writer = await crypto.writerKey();
const trustedWriters = [new Uint8Array(Buffer.from(writer.publicKey, 'base64'))];
const place = (version: number, record = recordId) => ({ accountId, recordId: record, version });
type Value = ReturnType<typeof crypto.sealRecordValue>['value'];
const wrapFor = (value: Value, version: number, dataKeyOf = value) =>
  wrapDataKey({
    dataKey: crypto.openRecordDataKey(dataKeyOf, place(version)),
    recipientPublicKey: reader.publicKey,
    accountId,
    recordId,
    version,
    recipientId: readerId,
    valueDigest: valueDigest(value),
    writer: writer.sender,
    wrappedAt: new Date(),
  });
const fields = (version: number, value: Value, dek: string) => ({
  version,
  ciphertext: value.ciphertext,
  wrapper: { ...value.wrapper, wrappedDek: dek },
});

describe("re-wrapping a value for a reader from cplane's own wrapper", () => {
  it('lets the reader decrypt, and only the version it was wrapped for', () => {
    const v1 = crypto.sealRecordValue('first value', place(1)).value;
    const wrappedDek = wrapFor(v1, 1);
    expect(decryptAsReader({ recordId, fields: fields(1, v1, wrappedDek), privateKey: reader.privateKey, trustedWriters })).toMatchObject({
      value: 'first value',
      version: 1,
      accountId,
      writerKeyId: writer.keyId,
    });

    // The next version, not yet wrapped for the reader: its old wrapper is refused by version.
    const v2 = crypto.sealRecordValue('second value', place(2)).value;
    expect(() => decryptAsReader({ recordId, fields: fields(2, v2, wrappedDek), privateKey: reader.privateKey, trustedWriters })).toThrow(
      expect.objectContaining({ code: 'WRAP_OTHER_VERSION' }),
    );
    const rewrapped = wrapFor(v2, 2);
    expect(decryptAsReader({ recordId, fields: fields(2, v2, rewrapped), privateKey: reader.privateKey, trustedWriters }).value).toBe(
      'second value',
    );
  });

  it('refuses, as cplane, a value bound to another record or version, naming the record (never a data key for the wrong record)', () => {
    const b = crypto.sealRecordValue('record B', place(1, otherRecordId)).value;
    expect(() => crypto.openRecordDataKey(b, place(1))).toThrow(
      expect.objectContaining({ code: 'WRAP_VALUE_MISMATCH', message: expect.stringContaining(recordId) }),
    );
    const v1 = crypto.sealRecordValue('v1', place(1)).value;
    expect(() => crypto.openRecordDataKey(v1, place(2))).toThrow(expect.objectContaining({ code: 'WRAP_VALUE_MISMATCH' }));
    expect(() => crypto.decryptRecordValue(b, place(1))).toThrow(/does not match its wrapper/);
  });

  it('refuses, as a reader, a rollback below minVersion, and the ciphertext of another value under a valid wrapper', () => {
    const v1 = crypto.sealRecordValue('old', place(1)).value;
    const old = fields(1, v1, wrapFor(v1, 1));
    expect(() => decryptAsReader({ recordId, fields: old, privateKey: reader.privateKey, trustedWriters, minVersion: 2 })).toThrow(
      expect.objectContaining({ code: 'WRAP_ROLLBACK' }),
    );
    const other = crypto.sealRecordValue('other', place(1)).value;
    expect(() =>
      decryptAsReader({ recordId, fields: { ...old, ciphertext: other.ciphertext }, privateKey: reader.privateKey, trustedWriters }),
    ).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
  });

  it("refuses cplane's own wrapper as a reader's (no grant)", () => {
    const v1 = crypto.sealRecordValue('value', place(1)).value;
    expect(() => decryptAsReader({ recordId, fields: { version: 1, ...v1 }, privateKey: reader.privateKey, trustedWriters })).toThrow(
      /holds no grant/,
    );
  });
});
