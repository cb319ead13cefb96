/**
 * Decrypting a record value as one of its readers: the API's `fields` section carries the ciphertext and, in
 * place of cplane's own wrapper, the data key wrapped for the caller (./data-key-wrap.ts). Only the caller's
 * private key opens it, and only as sealed by a writer the caller trusts; the version must be one the caller
 * accepts (no rollback below `minVersion`); the value must be the one the wrapper was made for, in the place
 * it was bound to (./record-value.ts). The plaintext never leaves the caller.
 */
import { isHpkeWrapper, unwrapDataKey } from './data-key-wrap.js';
import { decryptWithDataKey, valueDigest, type EncryptedValue } from './record-value.js';
import { WrapError } from './wrap-error.js';

/** The `fields` section of POST /records/{id}/read. */
export interface RecordFields {
  version: number;
  ciphertext: string;
  wrapper: EncryptedValue['wrapper'];
}

export interface ReaderDecryptRequest {
  recordId: string;
  fields: RecordFields;
  privateKey: Uint8Array;
  /** Public keys of the writers the reader trusts (cplane's: `cplane writer-key`). */
  trustedWriters: readonly Uint8Array[];
  /** The oldest value version the reader accepts; an older one is WRAP_ROLLBACK. */
  minVersion?: number;
  /** The reader's id, when the caller knows it: a wrapper for another reader is then refused by name. */
  readerId?: string;
  /** The account the caller expects the record in, when it knows it: a wrapper for another is WRAP_OTHER_ACCOUNT. */
  accountId?: string;
}

/** A value read and checked, with what its authenticated wrapper says of it. */
export interface ReaderValue {
  value: string;
  version: number;
  accountId: string;
  writerKeyId: string;
  wrappedAt: Date;
}

export function decryptAsReader(request: ReaderDecryptRequest): ReaderValue {
  const { recordId, fields, privateKey, readerId, trustedWriters, minVersion, accountId } = request;
  if (!isHpkeWrapper(fields.wrapper.wrappedDek)) {
    throw new WrapError(
      'WRAP_MALFORMED',
      `The API returned no data key wrapped for this reader for record ${recordId}: it holds no grant of it. Ask the owner of the configuration that manages the record to grant it to this reader.`,
    );
  }
  const opened = unwrapDataKey({
    wrappedDek: fields.wrapper.wrappedDek,
    recipientPrivateKey: privateKey,
    recordId,
    version: fields.version,
    valueDigest: valueDigest(fields),
    trustedWriters,
    ...(readerId ? { recipientId: readerId } : {}),
  });
  // The version is now the writer's word, not only the server's: compare it with what the reader accepts.
  if (minVersion !== undefined && opened.version < minVersion) {
    throw new WrapError(
      'WRAP_ROLLBACK',
      `Record ${recordId} was returned at value version ${opened.version} (wrapped ${opened.wrappedAt.toISOString()}), older than version ${minVersion}, the oldest this reader accepts: the API returned an old value.`,
    );
  }
  if (accountId !== undefined && opened.accountId !== accountId) {
    throw new WrapError(
      'WRAP_OTHER_ACCOUNT',
      `The value of record ${recordId} was written for account ${opened.accountId}, not for ${accountId}, the account this reader expects: the API returned another deployment's value.`,
    );
  }
  const value = decryptWithDataKey(opened.dataKey, fields, { accountId: opened.accountId, recordId, version: opened.version });
  return { value, version: opened.version, accountId: opened.accountId, writerKeyId: opened.writerKeyId, wrappedAt: opened.wrappedAt };
}
