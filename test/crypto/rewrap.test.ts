// A value cplane encrypted with its state key can be wrapped again for a reader later, without the plaintext:
// cplane's own wrapper gives the data key back (openRecordDataKey), wrapDataKey wraps it for the reader's public
// key, and the reader alone decrypts the value. A new value version has a new data key, so an old reader's
// wrapper does not open it.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { wrapDataKey } from '../../src/crypto/data-key-wrap.js';
import { generateKeyPair } from '../../src/crypto/hpke.js';
import { decryptAsReader } from '../../src/crypto/read-value.js';
import { createStateCrypto, stateKeys } from '../../src/state/state-crypto.js';

const keys = stateKeys(new Uint8Array(randomBytes(32)));
const crypto = createStateCrypto(() => keys, { account: 'a', lineage: 'l' }, (address) => address);
const reader = generateKeyPair();
const recordId = '1b000000-0000-4000-8000-000000000009';
const readerId = '0e000000-0000-4000-8000-000000000001';

describe('re-wrapping a value for a reader from cplane\'s own wrapper', () => {
  it('lets the reader decrypt, and only the version it was wrapped for', () => {
    const v1 = crypto.sealRecordValue('first value').value;
    const wrappedDek = wrapDataKey({ dataKey: crypto.openRecordDataKey(v1), recipientPublicKey: reader.publicKey, recordId, version: 1, recipientId: readerId });
    const fields = (version: number, value: typeof v1, dek: string) => ({ version, ciphertext: value.ciphertext, wrapper: { ...value.wrapper, wrappedDek: dek } });
    expect(decryptAsReader({ recordId, fields: fields(1, v1, wrappedDek), privateKey: reader.privateKey })).toBe('first value');

    // The next version, not yet wrapped for the reader: its old wrapper is refused by version, and a wrapper of
    // the old data key relabelled as version 2 does not open the new ciphertext.
    const v2 = crypto.sealRecordValue('second value').value;
    expect(() => decryptAsReader({ recordId, fields: fields(2, v2, wrappedDek), privateKey: reader.privateKey })).toThrow(expect.objectContaining({ code: 'WRAP_OTHER_VERSION' }));
    const oldKeyAsV2 = wrapDataKey({ dataKey: crypto.openRecordDataKey(v1), recipientPublicKey: reader.publicKey, recordId, version: 2, recipientId: readerId });
    expect(() => decryptAsReader({ recordId, fields: fields(2, v2, oldKeyAsV2), privateKey: reader.privateKey })).toThrow();
    const rewrapped = wrapDataKey({ dataKey: crypto.openRecordDataKey(v2), recipientPublicKey: reader.publicKey, recordId, version: 2, recipientId: readerId });
    expect(decryptAsReader({ recordId, fields: fields(2, v2, rewrapped), privateKey: reader.privateKey })).toBe('second value');
  });

  it('refuses cplane\'s own wrapper as a reader\'s (no grant)', () => {
    const v1 = crypto.sealRecordValue('value').value;
    expect(() => decryptAsReader({ recordId, fields: { version: 1, ...v1 }, privateKey: reader.privateKey })).toThrow(/holds no grant/);
  });
});
