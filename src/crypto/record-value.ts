/**
 * Client-side encryption of record values into the API's EncryptedValue shape
 * (the service stores only ciphertext and wrappers, spec rule 1). Each value
 * gets a fresh random 32-byte data key (DEK); the value is encrypted with it,
 * and the DEK is wrapped with a key-encryption key (KEK) derived from the state
 * key, so whoever holds the state key can decrypt, and no one else.
 *
 * Format (all base64): `ciphertext` = XChaCha20-Poly1305(DEK, nonce) of the
 * UTF-8 value with ciphertext and tag; `wrapper.nonce` = that 24-byte nonce;
 * `wrapper.wrappedDek` = 24-byte wrap nonce followed by XChaCha20-Poly1305(KEK)
 * of the DEK, with the keyId as associated data; `wrapper.keyId` = first 16 hex
 * digits of SHA-256(KEK); `wrapper.alg` = RECORD_VALUE_ALG.
 *
 * Readers other than cplane get the same data key wrapped for their own
 * public key (./data-key-wrap.ts); the API hands each reader its wrapper in
 * place of `wrapper.wrappedDek`.
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { createHash, hkdfSync } from 'node:crypto';
import type { EncryptedValueT } from '../api/shapes.js';

export const RECORD_VALUE_ALG = 'xchacha20poly1305+kek-hkdf-sha256/v1';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The record key-encryption key: HKDF-SHA256 of the state key, so it is never the state key itself. */
export function recordKek(stateKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', stateKey, new Uint8Array(0), 'cplane/record-kek/v1', 32));
}

/** A short, non-secret name of a KEK, so a reader can tell which key wrapped a value. */
export function recordKeyId(kek: Uint8Array): string {
  return createHash('sha256').update(kek).digest('hex').slice(0, 16);
}

export function encryptRecordValue(kek: Uint8Array, plaintext: string): EncryptedValueT {
  return sealRecordValue(kek, plaintext).value;
}

/** encryptRecordValue, also returning the fresh data key, so the same apply can wrap it for the record's readers. */
export function sealRecordValue(kek: Uint8Array, plaintext: string): { value: EncryptedValueT; dataKey: Uint8Array } {
  const keyId = recordKeyId(kek);
  const dek = randomBytes(32);
  const nonce = randomBytes(24);
  const ciphertext = xchacha20poly1305(dek, nonce).encrypt(encoder.encode(plaintext));
  const wrapNonce = randomBytes(24);
  const wrapped = xchacha20poly1305(kek, wrapNonce, encoder.encode(keyId)).encrypt(dek);
  return {
    value: { ciphertext: base64(ciphertext), wrapper: { alg: RECORD_VALUE_ALG, keyId, wrappedDek: base64(concat(wrapNonce, wrapped)), nonce: base64(nonce) } },
    dataKey: dek,
  };
}

/** Inverse of encryptRecordValue; throws when the KEK is not the one that wrapped the value or the bytes were altered. */
export function decryptRecordValue(kek: Uint8Array, value: EncryptedValueT): string {
  return decryptWithDataKey(openDataKey(kek, value), value);
}

/**
 * The data key of a value, from cplane's own wrapper (the state key's KEK): what lets cplane wrap a value
 * again for a new reader later, without the plaintext.
 */
export function openDataKey(kek: Uint8Array, value: EncryptedValueT): Uint8Array {
  const keyId = recordKeyId(kek);
  checkAlg(value);
  if (value.wrapper.keyId !== keyId) throw new Error(`record value was wrapped with key ${value.wrapper.keyId}, not ${keyId}`);
  const wrapped = Buffer.from(value.wrapper.wrappedDek, 'base64');
  return xchacha20poly1305(kek, wrapped.subarray(0, 24), encoder.encode(keyId)).decrypt(wrapped.subarray(24));
}

/** The plaintext of a value, given its data key (from cplane's wrapper or a reader's HPKE wrapper). */
export function decryptWithDataKey(dataKey: Uint8Array, value: Pick<EncryptedValueT, 'ciphertext' | 'wrapper'>): string {
  checkAlg(value);
  const nonce = Buffer.from(value.wrapper.nonce ?? '', 'base64');
  return decoder.decode(xchacha20poly1305(dataKey, nonce).decrypt(Buffer.from(value.ciphertext, 'base64')));
}

function checkAlg(value: Pick<EncryptedValueT, 'wrapper'>): void {
  if (value.wrapper.alg !== RECORD_VALUE_ALG) throw new Error(`record value uses ${value.wrapper.alg}, not ${RECORD_VALUE_ALG}`);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
