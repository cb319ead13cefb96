/**
 * Errors of the SDK's client, worded for an application and the people who run it: what failed, the API's
 * reason and request id to quote, and who must act. Never a command of cplane's CLI (the CLI words its own
 * advice from the codes), never the token or a request body. Text from the server is untrusted: it is cut
 * short and stripped of control characters before it goes into a message.
 */

/** The API answered with its failure envelope, or with something that is not a valid answer. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly operation: string,
    readonly status: number,
    /** The envelope's `error.code` (or `invalid_response`, `http_<status>`). */
    readonly code: string,
    /** The specific reason: the envelope's `error.message`, e.g. `record_not_found`. */
    readonly reason: string,
    readonly requestId: string | undefined,
    readonly attempts: number,
  ) {
    const parts = [
      `${operation} failed: the control-plane API answered ${status} ${clean(code)}${reason && reason !== code ? ` (${clean(reason)})` : ''}`,
    ];
    if (attempts > 1) parts.push(`after ${attempts} attempts`);
    if (requestId) parts.push(`request id ${clean(requestId)}`);
    const who = whoActs(status, reason);
    super(`${parts.join(', ')}.${who ? ` ${who}` : ''}`);
  }
}

/** No complete answer: the connection failed on every attempt, or the deadline passed. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly code = 'NETWORK_ERROR';
  constructor(
    readonly operation: string,
    readonly attempts: number,
    override readonly cause: unknown,
    deadlineMs?: number,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      deadlineMs !== undefined
        ? `${operation}: no complete answer from the control-plane API within ${deadlineMs / 1000} s. Check the base URL and the network (or raise timeoutMs), then try again.`
        : `${operation}: no answer from the control-plane API after ${attempts} attempt(s) (${clean(why)}). Check the base URL and the network, then try again.`,
    );
  }
}

export type AccountErrorCode =
  /** The API needs the account and none was given or found. */
  | 'ACCOUNT_REQUIRED'
  /** The token can act in several accounts: which one is not for the SDK to guess. */
  | 'ACCOUNT_AMBIGUOUS'
  /** The token can act in no account. */
  | 'ACCOUNT_NONE';

/** The account to read in is not known: the caller gave none, and it could not be found. */
export class AccountError extends Error {
  override readonly name = 'AccountError';
  constructor(
    readonly code: AccountErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Who must act on a refusal, by status: the application's operator, or an admin of the account. */
function whoActs(status: number, reason: string): string | undefined {
  if (status === 401)
    return 'The token is missing, invalid or expired: the application needs a valid Service Account token from an admin of the account.';
  if (status === 403 && reason === 'service_account_inactive')
    return 'The Service Account is not active: ask an admin of the account to activate it.';
  if (status === 403)
    return 'This token may not do this in this account: check the account id, and ask the owner of the configuration to grant the record to this Service Account.';
  if (status === 404) return 'There is no such object in the account: check the record id and the account id.';
  if (status === 429 || status >= 500) return 'The API is busy or failing: try again later, and quote the request id if it persists.';
  if (status >= 200 && status < 400)
    return "The answer is not the control-plane API's: check the base URL (the API's address, without /v1).";
  return undefined;
}

/** Server text as it may go into a message: no control or direction characters, at most 200 characters. */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, '?');
  return plain.length > 200 ? `${plain.slice(0, 200)}…` : plain;
}

export type WatchErrorCode =
  /** The record list (`GET /records`) no longer lists a record being watched: removed, ungranted, or hidden by the server. */
  | 'RECORD_NOT_LISTED'
  /** The record list kept a record's version while a read found a newer one: the list is stale or the server lies. */
  | 'RECORD_LIST_STALE'
  /** The record list did not end within the bound of pages a reader asks for in one refresh. */
  | 'RECORD_LIST_TOO_LONG';

/** What a watcher found wrong with the record list: reported through `onError`, the last good value kept. */
export class WatchError extends Error {
  override readonly name = 'WatchError';
  constructor(
    readonly code: WatchErrorCode,
    message: string,
  ) {
    super(message);
  }
}
