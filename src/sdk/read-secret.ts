/**
 * Reading a record's current value as one of its readers: one `fields` read
 * through the typed client, then local decryption with the reader's private
 * key. The API never sees the plaintext, and this module never writes it
 * anywhere: it returns it to the caller.
 */
import type { ApiClient } from '../api/client.js';
import { decryptAsReader, type RecordFields } from '../crypto/read-value.js';
import { WrapError } from '../crypto/data-key-wrap.js';

export interface ReadSecretOptions {
  recordId: string;
  /** The reader's X25519 private key (32 bytes), e.g. `decodeReaderKey(process.env.CPLANE_SA_KEY, 'CPLANE_SA_KEY')`. */
  privateKey: Uint8Array;
  /** The account the record is in (the `x-account-id` header), when the client was made without one. */
  accountId?: string;
  /** The reader's id, when known: a wrapper made for another reader is then refused by name. */
  readerId?: string;
}

/** The `fields` section of a record (ciphertext and the caller's wrapper); throws WrapError when the record has no value yet. */
export async function readRecordFields(client: ApiClient, recordId: string, accountId?: string): Promise<RecordFields> {
  const read = await client.call('readRecord', { path: { id: recordId }, body: { scope: ['fields'] } }, accountId ? { accountId } : {});
  if (!read.fields) throw new WrapError('WRAP_MALFORMED', `Record ${recordId} has no value yet.`);
  return read.fields;
}

/** The plaintext of the record's current value, decrypted locally; API refusals surface as ApiError (with requestId). */
export async function readSecret(client: ApiClient, options: ReadSecretOptions): Promise<string> {
  const fields = await readRecordFields(client, options.recordId, options.accountId);
  return decryptAsReader({ recordId: options.recordId, fields, privateKey: options.privateKey, ...(options.readerId ? { readerId: options.readerId } : {}) });
}
