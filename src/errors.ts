/**
 * The ground floor of errors (after Shopify CLI): every layer may import this
 * file, and it imports nothing of ours. Two kinds of thrown error end a
 * command: an abort, where the user's input or environment is wrong and the
 * message says what to do next, and a bug, which is reported as one.
 * `classifyError` is the one place that sorts any thrown value into what the
 * callers need to know: refresh (is a failed read a refusal?), the applier
 * journal (did the write certainly not happen?) and the CLI (what to print,
 * which exit code).
 */

export class AbortError extends Error {
  override readonly name: string = 'AbortError';
  constructor(
    message: string,
    /** What the user can do about it: printed on its own line after the message. */
    readonly hint?: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Something cplane got wrong: a broken invariant, never the user's input. Reported as a bug. */
export class BugError extends Error {
  override readonly name = 'BugError';
}

/**
 * What a thrown value means, whatever layer threw it:
 * - `abort`: the user's input or environment is wrong; the message says what to do.
 * - `refused`: the API answered with a documented refusal (403 or a per-resource 404): the request
 *   certainly did not happen, and a read of it counts as unreadable, not as a failure of the run.
 * - `rejected`: the API answered with any other definite failure (4xx, or 401): nothing was written.
 * - `unsure`: no definite answer (network failure, 5xx): a write may or may not have happened.
 * - `bug`: anything else.
 */
export type ErrorClass = 'abort' | 'refused' | 'rejected' | 'unsure' | 'bug';

/** The shape of the API layer's errors, recognised by their stable `code` and fields rather than by import. */
interface ApiLike {
  status: number;
  code: string;
  reason?: string;
  /**
   * A 404 whose reason its operation declares (api/operations.ts `notFound`, the one list): the object is not
   * there. Any other 404 (`route_not_found`: a wrong base URL) is not a refusal but a failure.
   */
  objectNotFound?: boolean;
}

/**
 * 403 reasons that say the account refuses the token itself, so every request in it will be refused: the token's
 * user or Service Account is not a member of the account (or the account does not exist: the API answers alike),
 * or the Service Account is inactive. Not a refusal of one read (a plan with nothing read is not "incomplete"),
 * but an error of the run, which names the account.
 */
const accountRefusalReasons: ReadonlySet<string> = new Set(['not_account_member', 'service_account_inactive']);

/** Whether an API answer says the account refuses the token itself (accountRefusalReasons). */
export function isAccountRefusal(status: number, reason: string | undefined): boolean {
  return status === 403 && accountRefusalReasons.has(reason ?? '');
}

function isApiLike(error: unknown): error is Error & ApiLike {
  return (
    error instanceof Error && typeof (error as Partial<ApiLike>).status === 'number' && typeof (error as Partial<ApiLike>).code === 'string'
  );
}

export function classifyError(error: unknown): ErrorClass {
  if (error instanceof AbortError) return 'abort';
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  // Refused by the client before sending (a Service Account on a human-only operation, a token over plain http).
  if (code === 'identity_refused' || code === 'insecure_http') return 'rejected';
  // A list past the client's bounds (a broken or hostile server): only reads were sent.
  if (code === 'list_too_large') return 'rejected';
  // No usable answer: the request may have been carried out.
  if (code === 'network_error' || code === 'response_too_large') return 'unsure';
  if (isApiLike(error)) {
    if (error.status === 403) return isAccountRefusal(error.status, error.reason) ? 'rejected' : 'refused';
    if (error.status === 404 && error.objectNotFound === true) return 'refused';
    return error.status < 500 ? 'rejected' : 'unsure';
  }
  return 'bug';
}
