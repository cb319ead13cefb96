/**
 * A record's data key wrapped for one reader (a Service Account, a user or a group) with HPKE auth mode
 * (./hpke.ts, RFC 9180 mode 0x02): only the holder of the reader's X25519 private key can recover it, and
 * it opens only as sent by the writer whose static key is named in the header, so a reader that trusts
 * cplane's writer key (./writer-key.ts) accepts no data key the API server made up: the server knows every
 * reader's public key, but not the writer's private key.
 *
 * The associated data is the whole header plus the record id and the digest of the value's ciphertext, so a
 * wrapper moved to another record, version, reader, value or account, or with an edited header, does not
 * open. The header says in clear which version it is for and when it was wrapped, so a reader can refuse an
 * old version (a rollback) by name. Pure functions: the applier's key ring, the SDK and the emulator call these.
 *
 * Wire format of `wrappedDek` (one line, fields separated by "."; docs/access.md):
 *   cplane-hpke2.<account>.<version>.<recipientId>.<keyId>.<writerKey>.<wrappedAt>.<enc>.<ct>
 * where writerKey, enc and ct are base64url without padding, keyId = keyIdOf(recipient public key),
 * wrappedAt is Unix seconds, info = "cplane/data-key-wrap/v2", and
 * aad = header (the first seven fields joined by ".") NUL recordId NUL valueDigest.
 */
import { HpkeOpenError, open, recipientOf, seal, type HpkeRecipient, type HpkeSender } from './hpke.js';
import { keyIdOf } from './key-id.js';
import { WrapError } from './wrap-error.js';

export { keyIdOf } from './key-id.js';
export { WrapError, type WrapErrorCode } from './wrap-error.js';

export const WRAP_FORMAT = 'cplane-hpke2';
/** The first format (base mode: no writer), refused by name. */
const UNAUTHENTICATED_FORMAT = 'cplane-hpke1';
const INFO = new TextEncoder().encode('cplane/data-key-wrap/v2');
const DATA_KEY_BYTES = 32;

export interface WrapDataKeyRequest {
  /** The record value's 32-byte data key. */
  dataKey: Uint8Array;
  /** The reader's X25519 public key (32 bytes). */
  recipientPublicKey: Uint8Array;
  accountId: string;
  recordId: string;
  /** The value version whose data key this is. */
  version: number;
  /** The reader's id: a Service Account, user or group uuid. */
  recipientId: string;
  /** SHA-256 (hex) of the value's ciphertext (record-value.ts `valueDigest`). */
  valueDigest: string;
  /** The writer's static key (./writer-key.ts): what the reader checks the wrapper came from. */
  writer: HpkeSender;
  /** When it is wrapped (the reader sees it, authenticated). */
  wrappedAt: Date;
}

export interface UnwrapDataKeyRequest {
  wrappedDek: string;
  /** The reader's X25519 private key (32 bytes), or recipientOf(it) when one key opens many wrappers. */
  recipientPrivateKey: Uint8Array | HpkeRecipient;
  recordId: string;
  /** The version the API says the ciphertext is; a wrapper of another version is refused by name. */
  version: number;
  /** Digest of the ciphertext the API returned with the wrapper. */
  valueDigest: string;
  /** When known, the reader's id; a wrapper made for another reader is refused by name. */
  recipientId?: string;
  /**
   * The writers' public keys the reader trusts; a wrapper from any other writer is WRAP_UNTRUSTED_WRITER.
   * `any` only checks the wrapper opens as its header's writer (the emulator, which judges no trust).
   */
  trustedWriters: readonly Uint8Array[] | 'any';
}

/** What a wrapper that opened says, all of it authenticated. */
export interface UnwrappedDataKey {
  dataKey: Uint8Array;
  accountId: string;
  version: number;
  writerKeyId: string;
  wrappedAt: Date;
}

/** The parts of a wrapper, as its header states them (authenticated only once it opens). */
export interface ParsedWrapper {
  header: string;
  accountId: string;
  version: number;
  recipientId: string;
  keyId: string;
  writerKey: Uint8Array;
  wrappedAt: Date;
  enc: Uint8Array;
  ct: Uint8Array;
}

export function wrapDataKey(request: WrapDataKeyRequest): string {
  const { dataKey, recipientPublicKey, accountId, recordId, version, recipientId, valueDigest, writer, wrappedAt } = request;
  if (dataKey.length !== DATA_KEY_BYTES) throw new TypeError(`a data key is ${DATA_KEY_BYTES} bytes, not ${dataKey.length}`);
  checkHeaderField(accountId, 'accountId');
  checkHeaderField(recipientId, 'recipientId');
  checkVersion(version);
  const header = [
    WRAP_FORMAT,
    accountId,
    String(version),
    recipientId,
    keyIdOf(recipientPublicKey),
    b64url(writer.publicKey),
    String(Math.floor(wrappedAt.getTime() / 1000)),
  ].join('.');
  const sealed = seal({ recipientPublicKey, info: INFO, aad: aadOf(header, recordId, valueDigest), plaintext: dataKey, sender: writer });
  return [header, b64url(sealed.enc), b64url(sealed.ct)].join('.');
}

export function unwrapDataKey(request: UnwrapDataKeyRequest): UnwrappedDataKey {
  const { wrappedDek, recipientPrivateKey, recordId, version, valueDigest, recipientId, trustedWriters } = request;
  const wrapper = parseWrappedDek(wrappedDek);
  if (wrapper.version !== version) {
    throw new WrapError(
      'WRAP_OTHER_VERSION',
      `The data key was wrapped for value version ${wrapper.version}, and the current version is ${version}: the new value has not been wrapped for this reader yet. Ask the owner of the configuration that manages the record to apply it, which wraps the new value for every reader.`,
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
      `The data key was wrapped for the key ${wrapper.keyId}, and the private key given is ${ownKeyId}: it is another reader's key, or the reader's key was rotated since. Give this reader's current private key; after a rotation, ask the owner of the configuration to wrap the value for the new key.`,
    );
  }
  const writerKeyId = keyIdOf(wrapper.writerKey);
  if (trustedWriters !== 'any' && !trustedWriters.some((key) => Buffer.from(key).equals(wrapper.writerKey))) {
    throw new WrapError(
      'WRAP_UNTRUSTED_WRITER',
      `The data key of record ${recordId} was wrapped by the writer ${writerKeyId}, which is not one of the writer keys this reader trusts: the API server, or a writer you have not pinned, made it. Check the writer keys you trust; if they are right, do not use the value.`,
    );
  }
  let dataKey: Uint8Array;
  try {
    dataKey = open({
      recipient,
      sealed: wrapper,
      info: INFO,
      aad: aadOf(wrapper.header, recordId, valueDigest),
      senderPublicKey: wrapper.writerKey,
    });
  } catch (error) {
    if (!(error instanceof HpkeOpenError)) throw error;
    throw new WrapError(
      'WRAP_OPEN_FAILED',
      `The wrapped data key of record ${recordId} does not open: it was made for another record, version, value or reader, not by the writer ${writerKeyId}, or altered. Do not use it.`,
      { cause: error },
    );
  }
  if (dataKey.length !== DATA_KEY_BYTES)
    throw new WrapError('WRAP_MALFORMED', `the wrapped data key is ${dataKey.length} bytes, not ${DATA_KEY_BYTES}`);
  return { dataKey, accountId: wrapper.accountId, version: wrapper.version, writerKeyId, wrappedAt: wrapper.wrappedAt };
}

/** True when `wrappedDek` is a reader's wrapper (either format), not cplane's own state-key wrapper. */
export function isHpkeWrapper(wrappedDek: string): boolean {
  return wrappedDek.startsWith(`${WRAP_FORMAT}.`) || wrappedDek.startsWith(`${UNAUTHENTICATED_FORMAT}.`);
}

export function parseWrappedDek(text: string): ParsedWrapper {
  if (text.startsWith(`${UNAUTHENTICATED_FORMAT}.`)) {
    throw new WrapError(
      'WRAP_UNTRUSTED_WRITER',
      `The data key was wrapped in the first format (${UNAUTHENTICATED_FORMAT}), which names no writer, so anyone who knows the reader's public key could have made it; it is not used. Ask the owner of the configuration that manages the record to wrap it again for this reader (a re-wrap).`,
    );
  }
  const parts = text.split('.');
  const [format, accountId, version, recipientId, keyId, writerKey, wrappedAt, enc, ct] = parts;
  if (
    parts.length !== 9 ||
    format !== WRAP_FORMAT ||
    !/^[A-Za-z0-9_:-]{1,100}$/.test(accountId!) ||
    !/^[1-9][0-9]{0,9}$/.test(version!) ||
    !/^[A-Za-z0-9_:-]{1,100}$/.test(recipientId!) ||
    !/^x25519:[0-9a-f]{16}$/.test(keyId!) ||
    !/^[0-9]{1,12}$/.test(wrappedAt!)
  ) {
    throw new WrapError(
      'WRAP_MALFORMED',
      `The wrapped data key is not in the ${WRAP_FORMAT} format (${WRAP_FORMAT}.<account>.<version>.<recipientId>.<keyId>.<writerKey>.<wrappedAt>.<enc>.<ct>).`,
    );
  }
  const writerBytes = fromB64url(writerKey!);
  const encBytes = fromB64url(enc!);
  const ctBytes = fromB64url(ct!);
  if (writerBytes?.length !== 32 || encBytes?.length !== 32 || ctBytes?.length !== DATA_KEY_BYTES + 16) {
    throw new WrapError('WRAP_MALFORMED', 'The wrapped data key has a writer key, encapsulated key or ciphertext of the wrong length.');
  }
  return {
    header: parts.slice(0, 7).join('.'),
    accountId: accountId!,
    version: Number(version),
    recipientId: recipientId!,
    keyId: keyId!,
    writerKey: writerBytes,
    wrappedAt: new Date(Number(wrappedAt) * 1000),
    enc: encBytes,
    ct: ctBytes,
  };
}

function aadOf(header: string, recordId: string, valueDigest: string): Uint8Array {
  return new TextEncoder().encode([header, recordId, valueDigest].join('\0'));
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
