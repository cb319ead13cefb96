/**
 * Sealing of secrets that must be kept (a gateway token's one-time plaintext,
 * journal bodies holding a secret): XChaCha20-Poly1305 with a random 24-byte
 * nonce. The associated data binds a sealed value to where it belongs, so a
 * value copied to another address does not open.
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { randomBytes } from '@noble/ciphers/utils.js';

/** XChaCha20-Poly1305 box: base64 of 24-byte nonce and ciphertext+tag. */
export interface SealedValue {
  alg: 'xchacha20poly1305';
  nonce: string;
  data: string;
}

export type SealErrorCode = 'SEAL_OPEN_FAILED' | 'SEAL_MALFORMED';

/** A sealed value that does not open: wrong key, wrong associated data, or tampered bytes. */
export class SealError extends Error {
  override readonly name = 'SealError';
  constructor(
    readonly code: SealErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function sealSecret(key: Uint8Array, plaintext: string, aad: string): SealedValue {
  const nonce = randomBytes(24);
  const data = xchacha20poly1305(key, nonce, encoder.encode(aad)).encrypt(encoder.encode(plaintext));
  return { alg: 'xchacha20poly1305', nonce: Buffer.from(nonce).toString('base64'), data: Buffer.from(data).toString('base64') };
}

export function openSecret(key: Uint8Array, sealed: SealedValue, aad: string): string {
  const nonce = Buffer.from(sealed.nonce, 'base64');
  const data = Buffer.from(sealed.data, 'base64');
  if (sealed.alg !== 'xchacha20poly1305' || nonce.length !== 24 || data.length < 16) {
    throw new SealError('SEAL_MALFORMED', `sealed value is malformed (alg ${String(sealed.alg)}, nonce ${nonce.length} bytes)`);
  }
  let opened: Uint8Array;
  try {
    opened = xchacha20poly1305(key, nonce, encoder.encode(aad)).decrypt(data);
  } catch (cause) {
    throw new SealError('SEAL_OPEN_FAILED', 'sealed value does not open: wrong key, another address, or altered bytes', { cause });
  }
  return decoder.decode(opened);
}
