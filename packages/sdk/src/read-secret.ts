/**
 * Reading a record's current value as one of its readers: one `fields` read through the client, then local
 * decryption with the reader's private key, accepted only when the data key was wrapped by a writer the
 * application trusts (`writerKeys`: the public writer key the owner of the configuration hands out), for this
 * record and the value returned with it, at a version no older than `minVersion` nor than one this process has
 * already read. The API never sees the plaintext, and this module never writes it anywhere: it returns it.
 */
import { discoverAccount, expectedAccount } from './account.js';
import type { ReaderClient } from './client.js';
import { AccountError } from './errors.js';
import { decryptAsReader, type ReaderValue, type RecordFields } from './read-value.js';
import { WrapError } from './wrap-error.js';

export interface ReadSecretOptions {
  recordId: string;
  /** The reader's X25519 private key (32 bytes), e.g. `decodeReaderKey(process.env.CPLANE_SA_KEY, 'CPLANE_SA_KEY')`. */
  privateKey: Uint8Array;
  /**
   * The public keys of the writers whose values the application accepts (32 bytes each, or base64); a value
   * wrapped by any other is refused (WRAP_UNTRUSTED_WRITER).
   */
  writerKeys: readonly (Uint8Array | string)[];
  /** The oldest value version accepted (e.g. the version of a rotation after a leak); older is WRAP_ROLLBACK. */
  minVersion?: number;
  /**
   * The account the record is in (the `x-account-id` header), when the client was made without one: the value's
   * wrapper must name it (WRAP_OTHER_ACCOUNT). Needed with a Service Account token (ACCOUNT_REQUIRED without it).
   */
  accountId?: string;
  /** The reader's id, when known: a wrapper made for another reader is then refused by name. */
  readerId?: string;
}

/**
 * The newest version this process has read of each record: a later read never goes backwards (a server
 * replaying an older value and its wrapper is refused, WRAP_ROLLBACK). Record ids are unique across accounts.
 */
const newestRead = new Map<string, number>();

/**
 * The `fields` section of a record (ciphertext and the caller's wrapper), in `accountId`, else the client's
 * account, else the token's own (./account.ts). A missing grant is WrapError WRAP_NOT_GRANTED, a record
 * without a value WRAP_MALFORMED; other refusals of the API are the client's errors (ApiError).
 */
export async function readRecordFields(client: ReaderClient, recordId: string, accountId?: string): Promise<RecordFields> {
  const account = accountId ?? client.accountId ?? (await discoverAccount(client));
  let read: { fields?: RecordFields | null };
  try {
    read = await client.call('readRecord', { path: { id: recordId }, body: { scope: ['fields'] } }, account ? { accountId: account } : {});
  } catch (error) {
    throw refusal(error, recordId) ?? error;
  }
  if (!read.fields)
    throw new WrapError(
      'WRAP_MALFORMED',
      `Record ${recordId} has no value yet: ask the owner of the configuration that manages it to write one.`,
    );
  return read.fields;
}

/** The plaintext of the record's current value, decrypted locally. */
export async function readSecret(client: ReaderClient, options: ReadSecretOptions): Promise<string> {
  return (await readSecretValue(client, options)).value;
}

/** readSecret, with what the writer's authenticated wrapper says of the value: its version, account, writer and when it was wrapped. */
export async function readSecretValue(client: ReaderClient, options: ReadSecretOptions): Promise<ReaderValue> {
  // A JavaScript caller may leave it out, or pass an unset variable split on commas: that is the refusal below.
  const trustedWriters = (options.writerKeys ?? []).filter((key) => typeof key !== 'string' || key.trim() !== '').map(writerKeyBytes);
  if (trustedWriters.length === 0) {
    throw new WrapError(
      'WRAP_UNTRUSTED_WRITER',
      'No writer key is trusted, so no value can be accepted: give writerKeys, the public writer key of the configuration that writes your secrets (its owner hands it out; it is not secret).',
    );
  }
  // The account asked for, or a human token's only one (./account.ts): the wrapper must name it too.
  const accountId = await expectedAccount(client, options.accountId);
  const fields = await readRecordFields(client, options.recordId, accountId);
  const seen = newestRead.get(options.recordId);
  const minVersion = Math.max(options.minVersion ?? 1, seen ?? 1);
  const read = decryptAsReader({
    recordId: options.recordId,
    fields,
    privateKey: options.privateKey,
    trustedWriters,
    ...(minVersion > 1 ? { minVersion } : {}),
    ...(options.readerId ? { readerId: options.readerId } : {}),
    accountId,
  });
  newestRead.set(options.recordId, Math.max(seen ?? 0, read.version));
  return read;
}

/**
 * The SDK's own error for a refusal of the API that says what is missing, from its status and reason (so cplane's
 * client and the SDK's name it alike), or undefined for any other error.
 */
function refusal(error: unknown, recordId: string): Error | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { status, reason, requestId } = error as { status?: unknown; reason?: unknown; requestId?: unknown };
  if (typeof status !== 'number' || typeof reason !== 'string') return undefined;
  const quoted = `the API answered ${status} ${reason}${typeof requestId === 'string' ? `, request id ${requestId}` : ''}`;
  if (status === 409 && reason.endsWith('grant_not_found')) {
    return new WrapError(
      'WRAP_NOT_GRANTED',
      `Record ${recordId} is not granted to this reader (${quoted}). Ask the owner of the configuration that manages the record to grant it to this reader.`,
      { cause: error },
    );
  }
  if (status === 400 && reason === 'account_id_required') {
    return new AccountError(
      'ACCOUNT_REQUIRED',
      `The API needs the account of record ${recordId} (${quoted}): give accountId, the id of the account the record is in (its owner knows it).`,
      { cause: error },
    );
  }
  return undefined;
}

function writerKeyBytes(key: Uint8Array | string): Uint8Array {
  if (typeof key !== 'string') return key;
  const bytes = Buffer.from(key.trim(), 'base64');
  if (bytes.length !== 32)
    throw new TypeError('a writer key is base64 of a 32-byte X25519 public key, as the owner of the configuration hands it out');
  return new Uint8Array(bytes);
}
