/**
 * Fingerprints of write-only values: HMAC-SHA256 keyed by the state key, so a
 * value can be compared with what was last applied without storing it, and
 * the fingerprint says nothing to anyone without the key.
 */
import { createHmac } from 'node:crypto';

/** Hex HMAC-SHA256 over `place + NUL + value`; the place (e.g. `${address}:${field}`) keeps equal values at different places apart. */
export function fingerprint(key: Uint8Array, value: string, place: string): string {
  return createHmac('sha256', key).update(`${place}\0${value}`, 'utf8').digest('hex');
}
