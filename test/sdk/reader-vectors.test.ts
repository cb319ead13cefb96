// The committed cross-language vectors (test/sdk/reader-vectors.json, written by ./reader-vectors.ts) as the
// TypeScript reader answers them: each value, or each error code. packages/python/tests/test_cross_language.py holds
// the Python reader to the same answers, so the two readers agree on every check.
import { decodeReaderCredential, decryptAsReader, WrapError } from '@cplane/sdk';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { makeReaderVectors, type ReaderVectors } from './reader-vectors.js';

const file = new URL('./reader-vectors.json', import.meta.url);
if (process.env.WRITE_READER_VECTORS === '1' || !existsSync(file)) writeFileSync(file, `${JSON.stringify(makeReaderVectors(), null, 2)}\n`);
const vectors = JSON.parse(readFileSync(file, 'utf8')) as ReaderVectors;
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

it('holds every refusal a reader makes, and values that open', () => {
  const codes = vectors.cases.map((c) => ('code' in c.expect ? c.expect.code : 'value'));
  for (const code of [
    'value',
    'WRAP_OPEN_FAILED',
    'WRAP_OTHER_ACCOUNT',
    'WRAP_ROLLBACK',
    'WRAP_UNTRUSTED_WRITER',
    'WRAP_OTHER_VERSION',
    'WRAP_OTHER_KEY',
    'WRAP_VALUE_MISMATCH',
    'WRAP_UNBOUND_VALUE',
    'WRAP_MALFORMED',
  ])
    expect(codes).toContain(code);
});

it.each(vectors.cases.map((c) => [c.case, c] as const))('%s', (_, c) => {
  const read = () =>
    decryptAsReader({
      recordId: c.recordId,
      fields: c.fields,
      privateKey: bytes(c.readerPrivateKey),
      trustedWriters: c.writerKeys.map(bytes),
      accountId: c.accountId,
      readerId: c.readerId,
      ...(c.minVersion ? { minVersion: c.minVersion } : {}),
    });
  if ('code' in c.expect) {
    const error = (() => {
      try {
        read();
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(WrapError);
    expect((error as WrapError).code).toBe(c.expect.code);
  } else {
    const value = read();
    expect({ value: value.value, version: value.version, writerKeyId: value.writerKeyId }).toEqual(c.expect);
  }
});

it('decodes each credential to its token and key', () => {
  for (const c of vectors.credentials) {
    const decoded = decodeReaderCredential(c.credential, 'the vector');
    expect(decoded.token).toBe(c.token);
    expect(Buffer.from(decoded.privateKey).toString('base64')).toBe(c.privateKey);
  }
});
