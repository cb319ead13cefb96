/**
 * Client-side encryption of record values into the API's EncryptedValue shape
 * (the service stores only ciphertext and wrappers, spec rule 1). Each value
 * gets a fresh random 32-byte data key (DEK); the value is encrypted with it,
 * and the DEK is wrapped with a key-encryption key (KEK) derived from the state
 * key, so whoever holds the state key can decrypt, and no one else.
 *
 * Both are bound to the value's place: the account, the record id and the
 * value version are the associated data of the value's ciphertext and of
 * cplane's own wrapper. A value the API returns for another record or version
 * (a lying server swapping records, or replaying an old version) does not open
 * as this one: `openDataKey` refuses it, naming the record, so the key ring
 * never wraps one record's data key into another record's grant.
 *
 * Format (all base64): `ciphertext` = XChaCha20-Poly1305(DEK, nonce, binding)
 * of the UTF-8 value with its tag; `wrapper.nonce` = that 24-byte nonce;
 * `wrapper.wrappedDek` = 24-byte wrap nonce followed by XChaCha20-Poly1305(KEK,
 * keyId NUL binding) of the DEK; `wrapper.keyId` = first 16 hex digits of
 * SHA-256(KEK); `wrapper.alg` = RECORD_VALUE_ALG; binding = "cplane/value/v2"
 * NUL account NUL recordId NUL version.
 *
 * Readers other than cplane get the same data key wrapped for their own
 * public key (@cplane/sdk's data-key-wrap.ts); the API hands each reader its
 * wrapper in place of `wrapper.wrappedDek`. Opening a value with its data key,
 * and the binding, are the SDK's (its record-value.ts): one copy, shared.
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';
import { createHash, hkdfSync } from 'node:crypto';
import type { EncryptedValueT } from '../api/shapes.js';
import {
  bindingParts,
  checkValueAlg,
  decryptWithDataKey,
  RECORD_VALUE_ALG,
  valueDigest,
  valueMismatch,
  type ValueBinding,
} from '@cplane/sdk/internal/record-value';
import { WrapError } from '@cplane/sdk/internal/wrap-error';

export {
  decryptWithDataKey,
  RECORD_VALUE_ALG,
  UNBOUND_RECORD_VALUE_ALG,
  valueDigest,
  type ValueBinding,
} from '@cplane/sdk/internal/record-value';

const encoder = new TextEncoder();

/** The record key-encryption key: HKDF-SHA256 of the state key, so it is never the state key itself. */
export function recordKek(stateKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', stateKey, new Uint8Array(0), 'cplane/record-kek/v1', 32));
}

/** A short, non-secret name of a KEK, so a reader can tell which key wrapped a value. */
export function recordKeyId(kek: Uint8Array): string {
  return createHash('sha256').update(kek).digest('hex').slice(0, 16);
}

/** The associated data of a value's ciphertext. */
function bindingAad(binding: ValueBinding): Uint8Array {
  return encoder.encode(bindingParts(binding).join('\0'));
}

/** The associated data of cplane's own wrapper: the KEK's id and the binding. */
function ownWrapperAad(keyId: string, binding: ValueBinding): Uint8Array {
  return encoder.encode([keyId, ...bindingParts(binding)].join('\0'));
}

/** Encrypts `plaintext` for its place; returns the value, its fresh data key, and its digest for the readers' wrappers. */
export function sealRecordValue(
  kek: Uint8Array,
  plaintext: string,
  binding: ValueBinding,
): { value: EncryptedValueT; dataKey: Uint8Array; digest: string } {
  const keyId = recordKeyId(kek);
  const dek = randomBytes(32);
  const nonce = randomBytes(24);
  const ciphertext = xchacha20poly1305(dek, nonce, bindingAad(binding)).encrypt(encoder.encode(plaintext));
  const wrapNonce = randomBytes(24);
  const wrapped = xchacha20poly1305(kek, wrapNonce, ownWrapperAad(keyId, binding)).encrypt(dek);
  const value = {
    ciphertext: base64(ciphertext),
    wrapper: { alg: RECORD_VALUE_ALG, keyId, wrappedDek: base64(concat(wrapNonce, wrapped)), nonce: base64(nonce) },
  };
  return { value, dataKey: dek, digest: valueDigest(value) };
}

/** Inverse of sealRecordValue for the same place; throws WrapError when the value is not this state's, or not this place's. */
export function decryptRecordValue(kek: Uint8Array, value: EncryptedValueT, binding: ValueBinding): string {
  return decryptWithDataKey(openDataKey(kek, value, binding), value, binding);
}

/**
 * The data key of a value, from cplane's own wrapper (the state key's KEK): what lets cplane wrap a value
 * again for a new reader later, without the plaintext. Refused, naming the record, when the value was bound
 * to another record or version (the API returned the wrong one) or to nothing (the first format).
 */
export function openDataKey(kek: Uint8Array, value: EncryptedValueT, binding: ValueBinding): Uint8Array {
  const keyId = recordKeyId(kek);
  checkValueAlg(value, binding);
  if (value.wrapper.keyId !== keyId) {
    throw new WrapError(
      'WRAP_OTHER_KEY',
      `The value of record ${binding.recordId} was wrapped with key ${value.wrapper.keyId}, not this state's key ${keyId}.`,
    );
  }
  const wrapped = Buffer.from(value.wrapper.wrappedDek, 'base64');
  try {
    return xchacha20poly1305(kek, wrapped.subarray(0, 24), ownWrapperAad(keyId, binding)).decrypt(wrapped.subarray(24));
  } catch (cause) {
    throw valueMismatch(binding, cause);
  }
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
