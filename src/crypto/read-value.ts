/**
 * Decrypting a record value as one of its readers: the API's `fields` section
 * carries the ciphertext and, in place of cplane's own wrapper, the data key
 * wrapped for the caller (./data-key-wrap.ts). Only the caller's private key
 * opens it; the plaintext never leaves the caller.
 */
import type { EncryptedValueT } from '../api/shapes.js';
import { isHpkeWrapper, unwrapDataKey, WrapError } from './data-key-wrap.js';
import { decryptWithDataKey } from './record-value.js';

/** The `fields` section of POST /records/{id}/read. */
export interface RecordFields {
  version: number;
  ciphertext: string;
  wrapper: EncryptedValueT['wrapper'];
}

export interface ReaderDecryptRequest {
  recordId: string;
  fields: RecordFields;
  privateKey: Uint8Array;
  /** The reader's id, when the caller knows it: a wrapper for another reader is then refused by name. */
  readerId?: string;
}

export function decryptAsReader(request: ReaderDecryptRequest): string {
  const { recordId, fields, privateKey, readerId } = request;
  if (!isHpkeWrapper(fields.wrapper.wrappedDek)) {
    throw new WrapError('WRAP_MALFORMED', `The API returned no data key wrapped for this reader for record ${recordId}: it holds no grant of it.`);
  }
  const dataKey = unwrapDataKey({ wrappedDek: fields.wrapper.wrappedDek, recipientPrivateKey: privateKey, recordId, version: fields.version, ...(readerId ? { recipientId: readerId } : {}) });
  return decryptWithDataKey(dataKey, fields);
}
