/**
 * Errors the API client throws. Each has a fixed `name` and a stable `code`
 * (after undici), and a message a person can act on: what failed, the API's
 * reason, the request id to quote, and what to do next. No message ever holds
 * a token or a request body.
 */
import type { OperationName } from './operations.js';
import { isAccountRefusal } from '../errors.js';
import { routes } from './routes.js';
import { safeText } from '../text/safe-text.js';

/** The API answered with its failure envelope (or a status it should not have). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: string;
  /** A 404 whose reason the operation declares (`notFound` of its entry): the object it names is not there. */
  readonly objectNotFound: boolean;
  constructor(
    readonly operation: OperationName,
    readonly status: number,
    code: string,
    /** The specific reason: `error.message` of the envelope, e.g. `gateway_not_found`. */
    readonly reason: string,
    readonly details: unknown,
    readonly requestId: string | undefined,
    readonly attempts: number,
    /** The account the request was sent for (`x-account-id`), when it named one. */
    readonly accountId?: string,
  ) {
    super(
      isAccountRefusal(status, reason)
        ? describeAccountRefusal(operation, status, code, reason, requestId, accountId)
        : describeApiFailure(operation, status, code, reason, details, requestId, attempts),
    );
    this.code = code;
    const declared: readonly string[] = (routes[operation] as { notFound?: readonly string[] }).notFound ?? [];
    this.objectNotFound = status === 404 && declared.includes(reason);
  }
}

/**
 * The account refuses the token itself (src/errors.ts, isAccountRefusal): one error for the whole run, naming the
 * account and the API's reason, since every other request in that account would be refused too.
 */
function describeAccountRefusal(
  operation: OperationName,
  status: number,
  code: string,
  reason: string,
  requestId: string | undefined,
  accountId: string | undefined,
): string {
  const answer = `${status} ${safeText(code)} (${safeText(reason)})${requestId ? `, request id ${safeText(requestId)}` : ''}`;
  const what =
    reason === 'service_account_inactive'
      ? "the token's Service Account is inactive. An admin of the account reactivates it in the dashboard."
      : "the token's user or Service Account is not a member of it, or no such account exists. Check the account id (--account, CPLANE_ACCOUNT, `account:` of the configuration or of the deployment) and that CPLANE_TOKEN is a token of a member.";
  return `The API refuses this token${accountId ? ` in account ${safeText(accountId)}` : ''}: ${operation} answered ${answer}; ${what}`;
}

/** The client refused to send: a Service Account token cannot call a human-only operation. */
export class IdentityRefusedError extends Error {
  override readonly name = 'IdentityRefusedError';
  readonly code = 'identity_refused';
  constructor(
    readonly operation: OperationName,
    method: string,
    path: string,
  ) {
    super(
      `${operation} (${method} ${path}) is a human-only operation and the token is a Service Account token (sk-svc-sa-); ` +
        'no request was sent. Use a personal access token (sk-svc-pat-) for this command.',
    );
  }
}

/** No complete HTTP answer: connection refused or reset, socket closed before the response, the request's deadline passed. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly code = 'network_error';
  constructor(
    readonly operation: OperationName,
    readonly attempts: number,
    override readonly cause: unknown,
    /** Set when the request's deadline passed, in ms. */
    readonly deadlineMs?: number,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      deadlineMs !== undefined
        ? `${operation}: no complete answer from the API within ${deadlineMs / 1000} s (the deadline of one request, retries included; set CPLANE_REQUEST_TIMEOUT in seconds to change it). Check CPLANE_BASE_URL and the network, then run the command again.`
        : `${operation}: no answer from the API after ${attempts} attempt(s) (${why}). Check CPLANE_BASE_URL and the network, then run the command again.`,
    );
  }
}

/** The answer was larger than the client reads (ClientOptions.maxResponseBytes); reading stopped there. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  readonly code = 'response_too_large';
  constructor(
    readonly operation: OperationName,
    readonly limitBytes: number,
  ) {
    super(
      `${operation}: the API answer is larger than ${formatBytes(limitBytes)}, the limit for one answer; no more of it was read. ` +
        'If the answer is expected to be this large, raise CPLANE_MAX_RESPONSE_MB.',
    );
  }
}

/**
 * A list went past one of the client's bounds (ClientOptions.listLimits): far more than any real account holds,
 * so the server is taken to be broken or hostile, and the command stops before it writes anything.
 */
export class ListTooLargeError extends Error {
  override readonly name = 'ListTooLargeError';
  readonly code = 'list_too_large';
  constructor(
    readonly operation: OperationName,
    readonly bound: 'pages' | 'objects' | 'bytes',
    readonly limit: number,
  ) {
    const what = bound === 'pages' ? `${limit} pages` : bound === 'objects' ? `${limit} objects` : `${formatBytes(limit)} in all`;
    super(
      `${operation}: the API kept answering this list past ${what}, far more than any real account holds; reading stopped and nothing was written. ` +
        'Check CPLANE_BASE_URL: the server may be broken or not the control-plane API.',
    );
  }
}

/** The client refused to send the token over plain http to another machine. */
export class InsecureTransportError extends Error {
  override readonly name = 'InsecureTransportError';
  readonly code = 'insecure_http';
  constructor(readonly host: string) {
    super(
      `Refusing to send the API token over plain http to ${host}: anyone on the network path could read it. ` +
        'Use an https:// address, or, if this network is trusted, pass --allow-insecure-http or set CPLANE_ALLOW_INSECURE_HTTP=1.',
    );
  }
}

const formatBytes = (bytes: number): string => (bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`);

const hints: Record<number, string> = {
  400: 'Fix the input named above; the request is not retried unchanged.',
  401: 'Check CPLANE_TOKEN: it must be a valid, unexpired token.',
  403: 'The token lacks a permission or access to this account or object; ask an account admin, and check CPLANE_ACCOUNT.',
  404: 'The object no longer exists; run `cplane plan` to refresh.',
  409: 'The object changed state since it was read; run `cplane plan` again to refresh.',
  429: 'The API rate limit was hit on every attempt; lower --parallelism or try again later.',
  500: 'The service failed on every attempt; try again later and quote the request id if it persists.',
  503: 'The service is unavailable; try again later.',
};

const routeHint = 'The API has no such route: is CPLANE_BASE_URL the address without /v1?';
const notTheApiHint = "The answer is not the control-plane API's: check that CPLANE_BASE_URL is the API's address (without /v1).";

function describeApiFailure(
  operation: OperationName,
  status: number,
  code: string,
  reason: string,
  details: unknown,
  requestId: string | undefined,
  attempts: number,
): string {
  // Everything from the server is untrusted text: escaped, and redacted of the run's secrets (a server may echo the request).
  const parts = [`${operation} failed: ${status} ${safeText(code)}${reason && reason !== code ? ` (${safeText(reason)})` : ''}`];
  if (Array.isArray(details) && details.length > 0)
    parts.push(`details: ${safeText(details.map((d) => (typeof d === 'string' ? d : JSON.stringify(d))).join('; '))}`);
  if (attempts > 1) parts.push(`after ${attempts} attempts`);
  if (requestId) parts.push(`request id ${safeText(requestId)}`);
  // A 404 that names no object is the API saying it has no such route: almost always a base URL with the
  // version prefix in it (the client adds /v1 itself).
  const hint =
    status === 404 && reason === 'route_not_found'
      ? routeHint
      : reason.startsWith('the API answered without') || (status >= 300 && status < 400)
        ? notTheApiHint
        : hints[status];
  return `${parts.join(', ')}.${hint ? ` ${hint}` : ''}`;
}
