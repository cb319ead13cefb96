/**
 * Why a record value cannot be read: one error for every way a value, its wrapper or its writer can be wrong,
 * so an application, `cplane read`, `cplane run` and the key ring of an apply name the same cause with the same code.
 * Messages say what is missing and who must act, never a command to run: the CLI adds its own advice by code.
 * Kept apart from the HPKE code so that reading the code of an error loads no cryptography.
 */
export type WrapErrorCode =
  /** Not in a format this version reads. */
  | 'WRAP_MALFORMED'
  /** Wrapped for another value version than the one the API returned with it (the new value awaits a re-wrap). */
  | 'WRAP_OTHER_VERSION'
  /** Wrapped for another reader. */
  | 'WRAP_OTHER_RECIPIENT'
  /** Wrapped for another key of the reader (the reader's key was rotated, or another key was given). */
  | 'WRAP_OTHER_KEY'
  /** Written for another account than the one the reader expects (another deployment's value, by the same writer). */
  | 'WRAP_OTHER_ACCOUNT'
  /** Does not open: made for another record, version, value or reader, or altered. */
  | 'WRAP_OPEN_FAILED'
  /** Not made by a writer the reader trusts (or made before writers were authenticated). */
  | 'WRAP_UNTRUSTED_WRITER'
  /** An older value version than the reader accepts (--min-version, or one it has already read a newer one of). */
  | 'WRAP_ROLLBACK'
  /** The value's ciphertext does not match its data key and binding: another record's value, or altered bytes. */
  | 'WRAP_VALUE_MISMATCH'
  /** A value written before values were bound to their record (the first value format): it cannot be checked. */
  | 'WRAP_UNBOUND_VALUE'
  /** The record is not granted to this reader: the API holds no data key wrapped for it (409 `*_grant_not_found`). */
  | 'WRAP_NOT_GRANTED';

/** A value or wrapper that cannot be used: the code says why, the message says what happened. */
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
