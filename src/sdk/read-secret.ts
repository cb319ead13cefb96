/**
 * Reading a record's current value as one of its readers: one `fields` read through the typed client, then
 * local decryption with the reader's private key, accepted only when the data key was wrapped by a writer the
 * application trusts (`writerKeys`: cplane's is printed by `cplane writer-key`), for this record and the value
 * returned with it, at a version no older than `minVersion` nor than one this process has already read. The
 * API never sees the plaintext, and this module never writes it anywhere: it returns it to the caller.
 */
import type { ApiClient } from '../api/client.js';
import { decryptAsReader, type ReaderValue, type RecordFields } from '../crypto/read-value.js';
import { WrapError } from '../crypto/wrap-error.js';

export interface ReadSecretOptions {
  recordId: string;
  /** The reader's X25519 private key (32 bytes), e.g. `decodeReaderKey(process.env.CPLANE_SA_KEY, 'CPLANE_SA_KEY')`. */
  privateKey: Uint8Array;
  /**
   * The public keys of the writers whose values the application accepts (32 bytes each, or base64 as
   * `cplane writer-key` prints them); a value wrapped by any other is refused (WRAP_UNTRUSTED_WRITER).
   */
  writerKeys: readonly (Uint8Array | string)[];
  /** The oldest value version accepted (e.g. the version of a rotation after a leak); older is WRAP_ROLLBACK. */
  minVersion?: number;
  /** The account the record is in (the `x-account-id` header), when the client was made without one. */
  accountId?: string;
  /** The reader's id, when known: a wrapper made for another reader is then refused by name. */
  readerId?: string;
}

/**
 * The newest version this process has read of each record: a later read never goes backwards (a server
 * replaying an older value and its wrapper is refused, WRAP_ROLLBACK). Record ids are unique across accounts.
 */
const newestRead = new Map<string, number>();

/** The `fields` section of a record (ciphertext and the caller's wrapper); throws WrapError when the record has no value yet. */
export async function readRecordFields(client: ApiClient, recordId: string, accountId?: string): Promise<RecordFields> {
  const read = await client.call('readRecord', { path: { id: recordId }, body: { scope: ['fields'] } }, accountId ? { accountId } : {});
  if (!read.fields) throw new WrapError('WRAP_MALFORMED', `Record ${recordId} has no value yet.`);
  return read.fields;
}

/** The plaintext of the record's current value, decrypted locally; API refusals surface as ApiError (with requestId). */
export async function readSecret(client: ApiClient, options: ReadSecretOptions): Promise<string> {
  return (await readSecretValue(client, options)).value;
}

/** readSecret, with what the writer's authenticated wrapper says of the value: its version, account, writer and when it was wrapped. */
export async function readSecretValue(client: ApiClient, options: ReadSecretOptions): Promise<ReaderValue> {
  // A JavaScript caller may leave it out, or pass an unset variable split on commas: that is the refusal below.
  const trustedWriters = (options.writerKeys ?? []).filter((key) => typeof key !== 'string' || key.trim() !== '').map(writerKeyBytes);
  if (trustedWriters.length === 0) {
    throw new WrapError('WRAP_UNTRUSTED_WRITER', 'No writer key is trusted, so no value can be accepted: give writerKeys, the public key of the writer of your secrets (the team that runs cplane gets it with `cplane writer-key`).');
  }
  const fields = await readRecordFields(client, options.recordId, options.accountId);
  const seen = newestRead.get(options.recordId);
  const minVersion = Math.max(options.minVersion ?? 1, seen ?? 1);
  const read = decryptAsReader({
    recordId: options.recordId,
    fields,
    privateKey: options.privateKey,
    trustedWriters,
    ...(minVersion > 1 ? { minVersion } : {}),
    ...(options.readerId ? { readerId: options.readerId } : {}),
    ...(options.accountId ? { accountId: options.accountId } : {}),
  });
  newestRead.set(options.recordId, Math.max(seen ?? 0, read.version));
  return read;
}

function writerKeyBytes(key: Uint8Array | string): Uint8Array {
  if (typeof key !== 'string') return key;
  const bytes = Buffer.from(key.trim(), 'base64');
  if (bytes.length !== 32) throw new TypeError('a writer key is base64 of a 32-byte X25519 public key, as `cplane writer-key` prints it');
  return new Uint8Array(bytes);
}
