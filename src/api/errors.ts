/**
 * Errors the API client throws. Each has a fixed `name` and a stable `code`
 * (after undici), and a message a person can act on: what failed, the API's
 * reason, the request id to quote, and what to do next. No message ever holds
 * a token or a request body.
 */
import type { OperationName } from './operations.js';

/** The API answered with its failure envelope (or a status it should not have). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: string;
  constructor(
    readonly operation: OperationName,
    readonly status: number,
    code: string,
    /** The specific reason: `error.message` of the envelope, e.g. `gateway_not_found`. */
    readonly reason: string,
    readonly details: unknown,
    readonly requestId: string | undefined,
    readonly attempts: number,
  ) {
    super(describeApiFailure(operation, status, code, reason, details, requestId, attempts));
    this.code = code;
  }
}

/** The client refused to send: a Service Account token cannot call a human-only operation. */
export class IdentityRefusedError extends Error {
  override readonly name = 'IdentityRefusedError';
  readonly code = 'identity_refused';
  constructor(readonly operation: OperationName, method: string, path: string) {
    super(
      `${operation} (${method} ${path}) is a human-only operation and the token is a Service Account token (sk-svc-sa-); ` +
        'no request was sent. Use a personal access token (sk-svc-pat-) for this command.',
    );
  }
}

/** No HTTP answer: connection refused or reset, socket closed before the response, timeout. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly code = 'network_error';
  constructor(
    readonly operation: OperationName,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${operation}: no answer from the API after ${attempts} attempt(s) (${why}). Check CPLANE_BASE_URL and the network, then run the command again.`);
  }
}

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
const notTheApiHint = 'The answer is not the control-plane API\'s: check that CPLANE_BASE_URL is the API\'s address (without /v1).';

function describeApiFailure(
  operation: OperationName,
  status: number,
  code: string,
  reason: string,
  details: unknown,
  requestId: string | undefined,
  attempts: number,
): string {
  const parts = [`${operation} failed: ${status} ${code}${reason && reason !== code ? ` (${reason})` : ''}`];
  if (Array.isArray(details) && details.length > 0) parts.push(`details: ${details.map(String).join('; ')}`);
  if (attempts > 1) parts.push(`after ${attempts} attempts`);
  if (requestId) parts.push(`request id ${requestId}`);
  // A 404 that names no object is the API saying it has no such route: almost always a base URL with the
  // version prefix in it (the client adds /v1 itself).
  const hint = status === 404 && reason === 'route_not_found' ? routeHint : reason.startsWith('the API answered without') || (status >= 300 && status < 400) ? notTheApiHint : hints[status];
  return `${parts.join(', ')}.${hint ? ` ${hint}` : ''}`;
}
