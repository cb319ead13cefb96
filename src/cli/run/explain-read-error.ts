/**
 * How `cplane read` and `cplane run` say why a record cannot be read: the SDK's errors say what is missing and who
 * must act; the commands to run are the CLI's, mapped here from their codes (keeping the API's reason and request id).
 */
import { ApiError } from '../../api/errors.js';
import { AccountError, WrapError, type WrapErrorCode } from '@cplane/sdk';
import { AbortError } from '../../errors.js';

/**
 * Turns a refusal to read, or a wrapper that cannot be used, into an abort that says what to do with cplane (keeping
 * the API's reason and request id). The SDK's errors say what is missing and who must act; the commands to run
 * are the CLI's, mapped here from their codes.
 */
export function explainWrap(error: unknown, recordId: string): never {
  if (error instanceof WrapError && error.code === 'WRAP_NOT_GRANTED' && error.cause instanceof ApiError) {
    const refusal = error.cause;
    throw new AbortError(
      `Record ${recordId} is not granted to this reader: the API answered ${refusal.status} ${refusal.reason}${refusal.requestId ? `, request id ${refusal.requestId}` : ''}.`,
      'Ask an owner of the record to grant it to this reader (a `grants` entry in the configuration that manages it, then `cplane apply`), then read again.',
    );
  }
  if (error instanceof AccountError) {
    throw new AbortError(`${error.code}: ${error.message}`, 'Pass --account ID or set CPLANE_ACCOUNT to the account the record is in.');
  }
  if (!(error instanceof WrapError)) throw error;
  const hints: Partial<Record<WrapErrorCode, string>> = {
    WRAP_NOT_GRANTED:
      'Ask an owner of the record to grant it to this reader (a `grants` entry in the configuration that manages it, then `cplane apply`), then read again.',
    WRAP_OTHER_VERSION: 'Run `cplane apply` for the configuration that grants the record, so the new value is wrapped for every reader.',
    WRAP_OTHER_ACCOUNT:
      'Check --account (or CPLANE_ACCOUNT): it must be the account the record is in. If it is, do not use this value: the API returned a value cplane wrote for another account.',
    WRAP_OTHER_KEY:
      "Give the private key of the reader this token belongs to (CPLANE_SA_KEY or --key-file); if the reader's key was rotated, `cplane apply` wraps the value for its new key.",
    WRAP_UNTRUSTED_WRITER:
      'Check the writer key you pinned (`cplane writer-key` of the configuration that grants the record). If it is right, do not use this value: a writer you do not trust, or the API server, made it. A wrapper of the first format is made again by `cplane apply --rewrap`.',
    WRAP_ROLLBACK:
      'The API returned an older value than you accept: do not use it, and report it (an older value may be one rotated after a leak).',
    WRAP_VALUE_MISMATCH:
      'Do not use this record until it is explained: the API returned a value that is not the one written for this record and version.',
    WRAP_OPEN_FAILED:
      'The wrapper does not open for this record, value and writer: do not use it; `cplane apply` wraps the current value again.',
    WRAP_UNBOUND_VALUE:
      'Run `cplane apply --rewrap` once with the configuration that manages the record: it writes the value again, bound to its record, and wraps it for every reader.',
  };
  throw new AbortError(
    `${error.code}: ${error.message}`,
    hints[error.code] ?? 'Ask an owner of the record to grant it to this reader, then read again.',
  );
}
