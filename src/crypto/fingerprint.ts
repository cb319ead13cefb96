/**
 * Fingerprints of write-only values: HMAC-SHA256 keyed by the state key, so a
 * value can be compared with what was last applied without storing it, and
 * the fingerprint says nothing to anyone without the key.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const encoder = new TextEncoder();

/** Hex HMAC-SHA256 over `context + NUL + value`; the context (e.g. `${address}:${field}`) keeps equal values at different places apart. */
export function fingerprint(key: Uint8Array, value: string, context: string): string {
  return bytesToHex(hmac(sha256, key, encoder.encode(`${context}\0${value}`)));
}
