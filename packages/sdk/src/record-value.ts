/**
 * A record value as a reader opens it: the API's EncryptedValue `{ciphertext, wrapper: {alg, keyId, wrappedDek,
 * nonce}}` (all base64), whose ciphertext is XChaCha20-Poly1305 under the value's own random 32-byte data key
 * (DEK), with the value's place as associated data: binding = "cplane/value/v2" NUL account NUL recordId NUL
 * version. A value the API returns for another record or version (a lying server swapping records, or
 * replaying an old version) does not open as this one.
 *
 * The writer (cplane) seals values and wraps the DEK with its own key (cplane's src/crypto/record-value.ts,
 * which uses the binding below); each reader gets the DEK wrapped for its own public key (./data-key-wrap.ts).
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { createHash } from 'node:crypto';
import { WrapError } from './wrap-error.js';

/** A record value as the API carries it (spec: EncryptedValue). */
export interface EncryptedValue {
  ciphertext: string;
  wrapper: { alg: string; keyId: string; wrappedDek: string; nonce?: string | undefined };
}

export const RECORD_VALUE_ALG = 'xchacha20poly1305+kek-hkdf-sha256/v2';
/** The first format, bound to nothing: refused by name. */
export const UNBOUND_RECORD_VALUE_ALG = 'xchacha20poly1305+kek-hkdf-sha256/v1';

/** Where a value belongs: what its ciphertext (and cplane's own wrapper) are bound to. */
export interface ValueBinding {
  accountId: string;
  recordId: string;
  version: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The binding's fields, in order: the associated data of a value's ciphertext is them joined by NUL. */
export function bindingParts(binding: ValueBinding): string[] {
  return ['cplane/value/v2', binding.accountId, binding.recordId, String(binding.version)];
}

/** SHA-256 (hex) of a value's ciphertext and nonce: what a reader's wrapper is bound to (./data-key-wrap.ts). */
export function valueDigest(value: { ciphertext: string; wrapper: { nonce?: string | undefined } }): string {
  return createHash('sha256')
    .update(`${value.ciphertext}\0${value.wrapper.nonce ?? ''}`)
    .digest('hex');
}

/** The plaintext of a value, given its data key (from cplane's wrapper or a reader's HPKE wrapper) and its place. */
export function decryptWithDataKey(
  dataKey: Uint8Array,
  value: Pick<EncryptedValue, 'ciphertext' | 'wrapper'>,
  binding: ValueBinding,
): string {
  checkValueAlg(value, binding);
  const nonce = Buffer.from(value.wrapper.nonce ?? '', 'base64');
  let bytes: Uint8Array;
  try {
    bytes = xchacha20poly1305(dataKey, nonce, encoder.encode(bindingParts(binding).join('\0'))).decrypt(
      Buffer.from(value.ciphertext, 'base64'),
    );
  } catch (cause) {
    throw valueMismatch(binding, cause);
  }
  return decoder.decode(bytes);
}

/** The refusal of a value that does not open for its place. */
export function valueMismatch(binding: ValueBinding, cause: unknown): WrapError {
  return new WrapError(
    'WRAP_VALUE_MISMATCH',
    `The value of record ${binding.recordId} does not match its wrapper for version ${binding.version} of account ${binding.accountId}: the API returned another record's or another version's value, or the bytes were altered.`,
    { cause },
  );
}

/** Refuses a value in another format than the current, bound one. */
export function checkValueAlg(value: Pick<EncryptedValue, 'wrapper'>, binding: ValueBinding): void {
  if (value.wrapper.alg === RECORD_VALUE_ALG) return;
  if (value.wrapper.alg === UNBOUND_RECORD_VALUE_ALG) {
    throw new WrapError(
      'WRAP_UNBOUND_VALUE',
      `The value of record ${binding.recordId} was written before values were bound to their record (${UNBOUND_RECORD_VALUE_ALG}), so it cannot be told from another record's value; it is not used. Ask the owner of the configuration that manages the record to write the value again.`,
    );
  }
  throw new WrapError('WRAP_MALFORMED', `The value of record ${binding.recordId} uses ${value.wrapper.alg}, not ${RECORD_VALUE_ALG}.`);
}
