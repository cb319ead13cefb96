/**
 * A record's data key wrapped for one reader (a Service Account, a user or a
 * group) with HPKE base mode (./hpke.ts), so only the holder of the reader's
 * X25519 private key can recover it. The associated data binds the wrapper to
 * the record, the value version and the recipient, so a wrapper moved to
 * another record, version or reader does not open. Pure functions: the
 * applier's key-wrapping resolver, the SDK and the emulator all call these.
 *
 * Wire format of `wrappedDek` (one line, fields separated by "."; docs/access.md):
 *   cplane-hpke1.<version>.<recipientId>.<keyId>.<enc>.<ct>
 * where enc and ct are base64url without padding, keyId = keyIdOf(recipient
 * public key), info = "cplane/data-key-wrap/v1", and
 * aad = "cplane-hpke1" NUL recordId NUL version NUL recipientId NUL keyId.
 */
import { createHash } from 'node:crypto';
import { HpkeOpenError, openBase, recipientOf, sealBase, type HpkeRecipient } from './hpke.js';

export const WRAP_FORMAT = 'cplane-hpke1';
const INFO = new TextEncoder().encode('cplane/data-key-wrap/v1');
const DATA_KEY_BYTES = 32;

export type WrapErrorCode = 'WRAP_MALFORMED' | 'WRAP_OTHER_VERSION' | 'WRAP_OTHER_RECIPIENT' | 'WRAP_OTHER_KEY' | 'WRAP_OPEN_FAILED';

/** A wrapper that cannot be used: the code says why, the message says what to do. */
export class WrapError extends Error {
  override readonly name = 'WrapError';
  constructor(
    readonly code: WrapErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface WrapDataKeyRequest {
  /** The record value's 32-byte data key. */
  dataKey: Uint8Array;
  /** The reader's X25519 public key (32 bytes). */
  recipientPublicKey: Uint8Array;
  recordId: string;
  /** The value version whose data key this is. */
  version: number;
  /** The reader's id: a Service Account, user or group uuid. */
  recipientId: string;
}

export interface UnwrapDataKeyRequest {
  wrappedDek: string;
  /** The reader's X25519 private key (32 bytes), or recipientOf(it) when one key opens many wrappers. */
  recipientPrivateKey: Uint8Array | HpkeRecipient;
  recordId: string;
  /** The version the API says the ciphertext is; a wrapper of another version is refused by name. */
  version: number;
  /** When known, the reader's id; a wrapper made for another reader is refused by name. */
  recipientId?: string;
}

/** The parts of a wrapper, as its header states them (authenticated only once it opens). */
export interface ParsedWrapper {
  version: number;
  recipientId: string;
  keyId: string;
  enc: Uint8Array;
  ct: Uint8Array;
}

/** A short, non-secret name of a public key: `x25519:` and 16 hex digits of its SHA-256. */
export function keyIdOf(publicKey: Uint8Array): string {
  return `x25519:${createHash('sha256').update(publicKey).digest('hex').slice(0, 16)}`;
}

export function wrapDataKey(request: WrapDataKeyRequest): string {
  const { dataKey, recipientPublicKey, recordId, version, recipientId } = request;
  if (dataKey.length !== DATA_KEY_BYTES) throw new TypeError(`a data key is ${DATA_KEY_BYTES} bytes, not ${dataKey.length}`);
  checkHeaderField(recipientId, 'recipientId');
  checkVersion(version);
  const keyId = keyIdOf(recipientPublicKey);
  const sealed = sealBase(recipientPublicKey, INFO, aadOf(recordId, version, recipientId, keyId), dataKey);
  return [WRAP_FORMAT, String(version), recipientId, keyId, b64url(sealed.enc), b64url(sealed.ct)].join('.');
}

export function unwrapDataKey(request: UnwrapDataKeyRequest): Uint8Array {
  const { wrappedDek, recipientPrivateKey, recordId, version, recipientId } = request;
  const wrapper = parseWrappedDek(wrappedDek);
  if (wrapper.version !== version) {
    throw new WrapError(
      'WRAP_OTHER_VERSION',
      `The data key was wrapped for value version ${wrapper.version}, and the current version is ${version}: the new value has not been wrapped for this reader yet.`,
    );
  }
  if (recipientId !== undefined && wrapper.recipientId !== recipientId) {
    throw new WrapError('WRAP_OTHER_RECIPIENT', `The data key was wrapped for ${wrapper.recipientId}, not for ${recipientId}.`);
  }
  const recipient = recipientPrivateKey instanceof Uint8Array ? recipientOf(recipientPrivateKey) : recipientPrivateKey;
  const ownKeyId = keyIdOf(recipient.publicKey);
  if (wrapper.keyId !== ownKeyId) {
    throw new WrapError(
      'WRAP_OTHER_KEY',
      `The data key was wrapped for the key ${wrapper.keyId}, and the private key given is ${ownKeyId}: it is another reader's key, or the reader's key was rotated since.`,
    );
  }
  try {
    const dataKey = openBase(recipient, wrapper, INFO, aadOf(recordId, version, wrapper.recipientId, wrapper.keyId));
    if (dataKey.length !== DATA_KEY_BYTES) throw new WrapError('WRAP_MALFORMED', `the wrapped data key is ${dataKey.length} bytes, not ${DATA_KEY_BYTES}`);
    return dataKey;
  } catch (error) {
    if (!(error instanceof HpkeOpenError)) throw error;
    throw new WrapError('WRAP_OPEN_FAILED', 'The wrapped data key does not open: it was made for another record, version or reader, or altered.', { cause: error });
  }
}

/** True when `wrappedDek` is in this module's format (other wrappers, e.g. cplane's own state-key wrapper, are not). */
export function isHpkeWrapper(wrappedDek: string): boolean {
  return wrappedDek.startsWith(`${WRAP_FORMAT}.`);
}

export function parseWrappedDek(text: string): ParsedWrapper {
  const parts = text.split('.');
  const [format, version, recipientId, keyId, enc, ct] = parts;
  if (parts.length !== 6 || format !== WRAP_FORMAT || !/^[1-9][0-9]{0,9}$/.test(version!) || !recipientId || !/^x25519:[0-9a-f]{16}$/.test(keyId!)) {
    throw new WrapError('WRAP_MALFORMED', `The wrapped data key is not in the ${WRAP_FORMAT} format (${WRAP_FORMAT}.<version>.<recipientId>.<keyId>.<enc>.<ct>).`);
  }
  const encBytes = fromB64url(enc!);
  const ctBytes = fromB64url(ct!);
  if (encBytes?.length !== 32 || ctBytes?.length !== DATA_KEY_BYTES + 16) {
    throw new WrapError('WRAP_MALFORMED', 'The wrapped data key has an encapsulated key or ciphertext of the wrong length.');
  }
  return { version: Number(version), recipientId, keyId: keyId!, enc: encBytes, ct: ctBytes };
}

function aadOf(recordId: string, version: number, recipientId: string, keyId: string): Uint8Array {
  return new TextEncoder().encode([WRAP_FORMAT, recordId, String(version), recipientId, keyId].join('\0'));
}

function checkHeaderField(value: string, name: string): void {
  if (!/^[A-Za-z0-9_:-]{1,100}$/.test(value)) throw new TypeError(`${name} must be 1 to 100 letters, digits, "_", ":" or "-"`);
}

function checkVersion(version: number): void {
  if (!Number.isInteger(version) || version < 1) throw new TypeError(`version must be a whole number from 1, not ${version}`);
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

function fromB64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64url'));
}
