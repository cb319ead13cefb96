// Client-side encryption of record values: the API's EncryptedValue shape, readable only with the state key, and only
// as the value of the account, record and version it was bound to.
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { EncryptedValue } from '../../src/api/shapes.js';
import {
  RECORD_VALUE_ALG,
  UNBOUND_RECORD_VALUE_ALG,
  decryptRecordValue,
  sealRecordValue,
  recordKek,
  recordKeyId,
} from '../../src/crypto/record-value.js';

const stateKey = new Uint8Array(32).fill(7);
const otherKey = new Uint8Array(32).fill(8);
const place = { accountId: '0a000000-0000-4000-8000-000000000001', recordId: '1b000000-0000-4000-8000-000000000001', version: 1 };
const encryptRecordValue = (kek: Uint8Array, plaintext: string) => sealRecordValue(kek, plaintext, place).value;

describe('record value encryption', () => {
  it('produces the API EncryptedValue shape and opens again with the same state key', () => {
    const kek = recordKek(stateKey);
    const value = encryptRecordValue(kek, 'sk_live_1234');
    expect(Value.Check(EncryptedValue, value)).toBe(true);
    expect(value.wrapper.alg).toBe(RECORD_VALUE_ALG);
    expect(value.wrapper.keyId).toBe(recordKeyId(kek));
    expect(value.wrapper.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(value)).not.toContain('sk_live_1234');
    expect(decryptRecordValue(kek, value, place)).toBe('sk_live_1234');
  });

  it('uses a fresh data key and nonce each time', () => {
    const kek = recordKek(stateKey);
    const a = encryptRecordValue(kek, 'same');
    const b = encryptRecordValue(kek, 'same');
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.wrapper.wrappedDek).not.toBe(b.wrapper.wrappedDek);
  });

  it('derives the KEK from the state key, never equal to it', () => {
    expect(Buffer.from(recordKek(stateKey)).equals(Buffer.from(stateKey))).toBe(false);
    expect(recordKeyId(recordKek(stateKey))).not.toBe(recordKeyId(recordKek(otherKey)));
  });

  it('refuses another key and altered bytes', () => {
    const value = encryptRecordValue(recordKek(stateKey), 'secret');
    expect(() => decryptRecordValue(recordKek(otherKey), value, place)).toThrow(expect.objectContaining({ code: 'WRAP_OTHER_KEY' }));
    const flipped = Buffer.from(value.ciphertext, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => decryptRecordValue(recordKek(stateKey), { ...value, ciphertext: flipped.toString('base64') }, place)).toThrow(
      expect.objectContaining({
        code: 'WRAP_VALUE_MISMATCH',
        message: expect.stringContaining(`The value of record ${place.recordId} does not match its wrapper`),
      }),
    );
  });

  it('refuses the value of another account, record or version, and a value of the first, unbound, format', () => {
    const kek = recordKek(stateKey);
    const value = encryptRecordValue(kek, 'secret');
    for (const other of [
      { ...place, accountId: '0a000000-0000-4000-8000-000000000002' },
      { ...place, recordId: '1b000000-0000-4000-8000-000000000002' },
      { ...place, version: 2 },
    ]) {
      expect(() => decryptRecordValue(kek, value, other)).toThrow(expect.objectContaining({ code: 'WRAP_VALUE_MISMATCH' }));
    }
    expect(() => decryptRecordValue(kek, { ...value, wrapper: { ...value.wrapper, alg: UNBOUND_RECORD_VALUE_ALG } }, place)).toThrow(
      expect.objectContaining({ code: 'WRAP_UNBOUND_VALUE' }),
    );
  });
});
