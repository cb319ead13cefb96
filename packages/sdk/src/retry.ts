/**
 * When and how long to wait before sending a request again (spec, Limits 2).
 * Only 429, 500 and 503 are retried, and a connection failure only when the
 * request is safe to repeat (a GET, or a write carrying an Idempotency-Key)
 * and its error code is one of the transient network codes below.
 * Backoff is exponential with full jitter; a Retry-After header wins.
 */
export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  /** Base of the exponential backoff, in ms. */
  baseDelayMs: number;
  /** Upper bound of one backoff delay, in ms. */
  maxDelayMs: number;
  /** Upper bound of a Retry-After the client will honour, in ms. */
  maxRetryAfterMs: number;
  retryStatuses: readonly number[];
  /** Error codes of a request that got no answer and is worth sending again (Node's codes). */
  retryNetworkCodes: readonly string[];
  /** Source of randomness for jitter, in [0, 1). Replaceable for repeatable tests. */
  random: () => number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  retryStatuses: [429, 500, 503],
  retryNetworkCodes: [
    'ECONNRESET',
    'ECONNREFUSED',
    'ECONNABORTED',
    'EPIPE',
    'ETIMEDOUT',
    'ENETUNREACH',
    'ENETDOWN',
    'EHOSTUNREACH',
    'EHOSTDOWN',
    'EAI_AGAIN',
  ],
  random: Math.random,
};

/** Delay before attempt `attempt + 1` (attempt counts from 1). */
export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfter: string | undefined): number {
  const fromHeader = parseRetryAfter(retryAfter);
  if (fromHeader !== undefined) return Math.min(fromHeader, policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(policy.random() * ceiling);
}

/** Retry-After is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Whether a thrown request failure is a transient network failure, by its code (or its cause's code). */
export function isTransient(policy: RetryPolicy, error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && policy.retryNetworkCodes.includes(code)) return true;
  }
  return false;
}
