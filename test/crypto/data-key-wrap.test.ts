// The reader's wrapper of a data key: it opens only with the reader's private key, for the record, version and
// reader it was made for; each mismatch is refused with its own code; a malformed wrapper is refused as such.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf, parseWrappedDek, unwrapDataKey, wrapDataKey } from '../../src/crypto/data-key-wrap.js';
import { generateKeyPair } from '../../src/crypto/hpke.js';

const reader = generateKeyPair();
const other = generateKeyPair();
const recordId = '1b000000-0000-4000-8000-000000000001';
const readerId = '0e000000-0000-4000-8000-000000000001';
const dataKey = new Uint8Array(randomBytes(32));
const wrapped = wrapDataKey({ dataKey, recipientPublicKey: reader.publicKey, recordId, version: 3, recipientId: readerId });
const unwrap = (overrides: Partial<Parameters<typeof unwrapDataKey>[0]> = {}) =>
  unwrapDataKey({ wrappedDek: wrapped, recipientPrivateKey: reader.privateKey, recordId, version: 3, recipientId: readerId, ...overrides });

describe('wrapDataKey / unwrapDataKey', () => {
  it('states version, reader and key id in its header, and gives the data key back to the reader', () => {
    expect(wrapped).toMatch(new RegExp(`^cplane-hpke1\\.3\\.${readerId}\\.x25519:[0-9a-f]{16}\\.[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]{64}$`));
    expect(parseWrappedDek(wrapped).keyId).toBe(keyIdOf(reader.publicKey));
    expect(unwrap()).toEqual(dataKey);
    // A fresh ephemeral key each time: two wrappers of the same key differ.
    expect(wrapDataKey({ dataKey, recipientPublicKey: reader.publicKey, recordId, version: 3, recipientId: readerId })).not.toBe(wrapped);
  });

  it('refuses another version, reader, key or record, each by name', () => {
    expect(() => unwrap({ version: 4 })).toThrow(expect.objectContaining({ code: 'WRAP_OTHER_VERSION' }));
    expect(() => unwrap({ recipientId: '0e000000-0000-4000-8000-000000000002' })).toThrow(expect.objectContaining({ code: 'WRAP_OTHER_RECIPIENT' }));
    expect(() => unwrap({ recipientPrivateKey: other.privateKey })).toThrow(expect.objectContaining({ code: 'WRAP_OTHER_KEY' }));
    expect(() => unwrap({ recordId: '1b000000-0000-4000-8000-000000000002' })).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
  });

  it('refuses a header edited to claim another version or reader (the associated data binds them)', () => {
    const parts = wrapped.split('.');
    const asVersion4 = [parts[0], '4', ...parts.slice(2)].join('.');
    expect(() => unwrap({ wrappedDek: asVersion4, version: 4 })).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
    const asOtherReader = [parts[0], parts[1], 'someone-else', ...parts.slice(3)].join('.');
    expect(() => unwrap({ wrappedDek: asOtherReader, recipientId: undefined })).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
  });

  it('refuses malformed wrappers without trying to open them', () => {
    for (const text of ['', 'not-a-real-wrapper', wrapped.replace('cplane-hpke1', 'cplane-hpke9'), wrapped.slice(0, -4), `${wrapped}.extra`, wrapped.replace('.3.', '.0.')]) {
      expect(() => unwrap({ wrappedDek: text })).toThrow(expect.objectContaining({ code: 'WRAP_MALFORMED' }));
    }
  });

  it('wraps only a 32-byte data key for a whole version from 1', () => {
    expect(() => wrapDataKey({ dataKey: new Uint8Array(16), recipientPublicKey: reader.publicKey, recordId, version: 1, recipientId: readerId })).toThrow(/32 bytes/);
    expect(() => wrapDataKey({ dataKey, recipientPublicKey: reader.publicKey, recordId, version: 0, recipientId: readerId })).toThrow(/whole number from 1/);
    expect(() => wrapDataKey({ dataKey, recipientPublicKey: reader.publicKey, recordId, version: 1, recipientId: 'a.b' })).toThrow(/recipientId/);
  });
});
