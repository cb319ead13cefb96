/**
 * The error every emulator check throws: an HTTP status plus the spec's reason
 * string (carried in `error.message`). The `code` is the stable category of the
 * status, as the spec's Errors table gives it (404 and 503 chosen here).
 */
export const codeOfStatus: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    /** The specific reason, e.g. `gateway_not_found`. */
    readonly reason: string,
    readonly details?: string[],
  ) {
    super(reason);
  }
}

export const VALIDATION_FAILED = 'Request validation failed';

export const badRequest = (reason: string, details?: string[]) => new HttpError(400, reason, details);
export const invalid = (...details: string[]) => new HttpError(400, VALIDATION_FAILED, details);
export const forbidden = (reason: string) => new HttpError(403, reason);
export const notFound = (reason: string) => new HttpError(404, reason);
export const conflict = (reason: string) => new HttpError(409, reason);
