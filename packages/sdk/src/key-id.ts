/** A short, non-secret name of an X25519 public key: `x25519:` and 16 hex digits of its SHA-256 (as `key_id` in GET /service-accounts). */
import { createHash } from 'node:crypto';

export function keyIdOf(publicKey: Uint8Array): string {
  return `x25519:${createHash('sha256').update(publicKey).digest('hex').slice(0, 16)}`;
}
