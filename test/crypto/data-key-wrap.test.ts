// The reader's wrapper of a data key (cplane-hpke2, HPKE auth mode): it opens only with the reader's private key,
// as sealed by the writer its header names, for the account, record, version, value and reader it was made for;
// each mismatch is refused with its own code, and a writer the reader does not trust is refused by name.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf } from '@cplane/sdk/internal/key-id';
import { parseWrappedDek, unwrapDataKey, wrapDataKey, type WrapDataKeyRequest } from '@cplane/sdk/internal/data-key-wrap';
import { generateKeyPair, recipientOf, sealBase } from '@cplane/sdk/internal/hpke';

const reader = generateKeyPair();
const other = generateKeyPair();
const writerPair = generateKeyPair();
const writer = recipientOf(writerPair.privateKey);
const accountId = '0a000000-0000-4000-8000-000000000001';
const recordId = '1b000000-0000-4000-8000-000000000001';
const readerId = '0e000000-0000-4000-8000-000000000001';
const valueDigest = 'ab'.repeat(32);
const dataKey = new Uint8Array(randomBytes(32));
const wrappedAt = new Date('2026-11-25T10:00:00Z');
const request: WrapDataKeyRequest = {
  dataKey,
  recipientPublicKey: reader.publicKey,
  accountId,
  recordId,
  version: 3,
  recipientId: readerId,
  valueDigest,
  writer,
  wrappedAt,
};
const wrapped = wrapDataKey(request);
const unwrap = (overrides: Partial<Parameters<typeof unwrapDataKey>[0]> = {}) =>
  unwrapDataKey({
    wrappedDek: wrapped,
    recipientPrivateKey: reader.privateKey,
    recordId,
    version: 3,
    recipientId: readerId,
    valueDigest,
    trustedWriters: [writerPair.publicKey],
    ...overrides,
  });

describe('wrapDataKey / unwrapDataKey', () => {
  it('states account, version, reader, key, writer and time in its header, and gives the data key back to the reader', () => {
    expect(wrapped).toMatch(
      new RegExp(
        `^cplane-hpke2\\.${accountId}\\.3\\.${readerId}\\.x25519:[0-9a-f]{16}\\.[A-Za-z0-9_-]{43}\\.1795600800\\.[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]{64}$`,
      ),
    );
    expect(parseWrappedDek(wrapped).keyId).toBe(keyIdOf(reader.publicKey));
    const opened = unwrap();
    expect(opened).toEqual({ dataKey, accountId, version: 3, writerKeyId: keyIdOf(writerPair.publicKey), wrappedAt });
    // A fresh ephemeral key each time: two wrappers of the same key differ.
    expect(wrapDataKey(request)).not.toBe(wrapped);
  });

  it('refuses another version, reader, key, record or value, each by name', () => {
    expect(() => unwrap({ version: 4 })).toThrow(expect.objectContaining({ code: 'WRAP_OTHER_VERSION' }));
    expect(() => unwrap({ recipientId: '0e000000-0000-4000-8000-000000000002' })).toThrow(
      expect.objectContaining({ code: 'WRAP_OTHER_RECIPIENT' }),
    );
    expect(() => unwrap({ recipientPrivateKey: other.privateKey })).toThrow(expect.objectContaining({ code: 'WRAP_OTHER_KEY' }));
    expect(() => unwrap({ recordId: '1b000000-0000-4000-8000-000000000002' })).toThrow(
      expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }),
    );
    expect(() => unwrap({ valueDigest: 'cd'.repeat(32) })).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
  });

  it('refuses a wrapper from a writer the reader does not trust, naming the writer; `any` only checks it opens', () => {
    const stranger = generateKeyPair();
    expect(() => unwrap({ trustedWriters: [stranger.publicKey] })).toThrow(
      expect.objectContaining({ code: 'WRAP_UNTRUSTED_WRITER', message: expect.stringContaining(keyIdOf(writerPair.publicKey)) }),
    );
    expect(() => unwrap({ trustedWriters: [] })).toThrow(expect.objectContaining({ code: 'WRAP_UNTRUSTED_WRITER' }));
    expect(unwrap({ trustedWriters: 'any' }).dataKey).toEqual(dataKey);
  });

  it('refuses a forgery: the server, who knows the reader public key, wraps its own data key and names the trusted writer', () => {
    // The forger cannot seal as the writer: it seals as itself (auth mode with its key) or in base mode, and edits
    // the header to name the trusted writer's public key.
    const forger = recipientOf(generateKeyPair().privateKey);
    const forged = wrapDataKey({ ...request, dataKey: new Uint8Array(32).fill(7), writer: forger });
    const parts = forged.split('.');
    parts[5] = Buffer.from(writerPair.publicKey).toString('base64url');
    expect(() => unwrap({ wrappedDek: parts.join('.') })).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
  });

  it('refuses the first format (base mode, no writer) by name', () => {
    const sealed = sealBase(reader.publicKey, new TextEncoder().encode('cplane/data-key-wrap/v1'), new Uint8Array(0), dataKey);
    const v1 = [
      'cplane-hpke1',
      '3',
      readerId,
      keyIdOf(reader.publicKey),
      Buffer.from(sealed.enc).toString('base64url'),
      Buffer.from(sealed.ct).toString('base64url'),
    ].join('.');
    expect(() => unwrap({ wrappedDek: v1 })).toThrow(
      expect.objectContaining({
        code: 'WRAP_UNTRUSTED_WRITER',
        message: expect.stringContaining('wrap it again for this reader (a re-wrap)'),
      }),
    );
  });

  it('refuses a header edited to claim another version, reader, account or time (the associated data binds them)', () => {
    const edit = (index: number, value: string) => {
      const parts = wrapped.split('.');
      parts[index] = value;
      return parts.join('.');
    };
    expect(() => unwrap({ wrappedDek: edit(2, '4'), version: 4 })).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
    expect(() => unwrap({ wrappedDek: edit(3, 'someone-else'), recipientId: undefined })).toThrow(
      expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }),
    );
    expect(() => unwrap({ wrappedDek: edit(1, '0a000000-0000-4000-8000-000000000002') })).toThrow(
      expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }),
    );
    expect(() => unwrap({ wrappedDek: edit(6, '1795600801') })).toThrow(expect.objectContaining({ code: 'WRAP_OPEN_FAILED' }));
  });

  it('refuses malformed wrappers without trying to open them', () => {
    for (const text of [
      '',
      'not-a-real-wrapper',
      wrapped.replace('cplane-hpke2', 'cplane-hpke9'),
      wrapped.slice(0, -4),
      `${wrapped}.extra`,
      wrapped.replace('.3.', '.0.'),
    ]) {
      expect(() => unwrap({ wrappedDek: text })).toThrow(expect.objectContaining({ code: 'WRAP_MALFORMED' }));
    }
  });

  it('wraps only a 32-byte data key for a whole version from 1', () => {
    expect(() => wrapDataKey({ ...request, dataKey: new Uint8Array(16) })).toThrow(/32 bytes/);
    expect(() => wrapDataKey({ ...request, version: 0 })).toThrow(/whole number from 1/);
    expect(() => wrapDataKey({ ...request, recipientId: 'a.b' })).toThrow(/recipientId/);
  });
});
