/**
 * cplane's writer key: a static X25519 key pair derived from the state key, with which every reader's
 * wrapper is sealed in HPKE auth mode (./data-key-wrap.ts). Its public key is what an application pins
 * (`cplane writer-key` prints it; `cplane read --writer-key`, CPLANE_WRITER_KEY, the SDK's `writerKeys`):
 * a wrapper the API server made, or one replayed from another writer, then does not open as trusted.
 * Deriving it (RFC 9180 DeriveKeyPair of a subkey of the state key) means no second secret to keep:
 * whoever holds the state key is the writer, and a new state key is a new writer.
 */
import { deriveKeyPair, recipientOf, type HpkeSender } from './hpke.js';
import { keyIdOf } from './key-id.js';

export interface WriterKey {
  sender: HpkeSender;
  /** Base64 of the 32-byte public key: what readers pin. */
  publicKey: string;
  /** `x25519:` and 16 hex digits, as wrappers name their writer. */
  keyId: string;
}

/** The writer key derived from `seed`, the state key's `writer key` subkey (state-key.ts `deriveSubkey`). */
export function writerKeyOf(seed: Uint8Array): WriterKey {
  const pair = deriveKeyPair(seed);
  return {
    sender: recipientOf(pair.privateKey),
    publicKey: Buffer.from(pair.publicKey).toString('base64'),
    keyId: keyIdOf(pair.publicKey),
  };
}

/** Thrown for a writer key list that cannot be read; `where` names its source. */
export class WriterKeyListError extends Error {
  override readonly name = 'WriterKeyListError';
}

/** Trusted writer keys written as base64 public keys separated by commas (`--writer-key`, CPLANE_WRITER_KEY). */
export function parseWriterKeys(text: string, where: string): Uint8Array[] {
  const keys = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (keys.length === 0) throw new WriterKeyListError(`${where} names no writer key.`);
  return keys.map((key, i) => {
    const bytes = Buffer.from(key, 'base64');
    if (!/^[A-Za-z0-9+/]{43}=$/.test(key) || bytes.length !== 32) {
      throw new WriterKeyListError(
        `Writer key ${i + 1} of ${where} is not base64 of a 32-byte X25519 public key (44 characters ending in "="); give the writer's public key as the owner of the configuration hands it out, not its id.`,
      );
    }
    return new Uint8Array(bytes);
  });
}
