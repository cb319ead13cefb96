/**
 * The typed API client. Every request is built from the operation table in
 * operations.ts: there is no per-endpoint request code. The transport is a
 * keep-alive agent and retries follow the retry policy, both shared with the SDK
 * (@cplane/sdk: packages/sdk/src/transport.ts, retry.ts); the number of requests in
 * flight is bounded by a Limiter. The bearer token is only ever put in the
 * Authorization header: never in a URL, an event, an error or a log.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiError,
  IdentityRefusedError,
  InsecureTransportError,
  ListTooLargeError,
  NetworkError,
  ResponseTooLargeError,
} from './errors.js';
import { adaptiveRateFor, type AdaptiveRate } from './adaptive-rate.js';
import { Limiter } from './limiter.js';
import type { OperationName, RequestOf, ResultOf } from './operations.js';
import { resultProblem } from './result-check.js';
import { fillPath, routes, type Route, type Routes } from './routes.js';
import { backoffDelay, defaultRetryPolicy, isTransient, type RetryPolicy } from '@cplane/sdk/internal/retry';
import { createTransport, type Answer, type Transport } from '@cplane/sdk/internal/transport';
import { identityOf, isLoopbackHost, type TokenIdentity } from '@cplane/sdk/internal/client';
import { version } from '../version.js';

export { identityOf, isLoopbackHost, type TokenIdentity } from '@cplane/sdk/internal/client';

/** What the client reports as it works; never holds a token or a body. */
export type ClientEvent =
  | { type: 'request'; operation: OperationName; method: string; path: string; attempt: number }
  | { type: 'response'; operation: OperationName; status: number; attempt: number; requestId?: string; durationMs: number }
  | { type: 'retry'; operation: OperationName; attempt: number; delayMs: number; status?: number; reason: string }
  /** A 429 set the token's request rate (adaptive-rate.ts): requests wait for their turn at this rate. */
  | { type: 'rate'; operation: OperationName; ratePerSecond: number }
  /** A request waited this long for its turn at the token's rate before it was sent. */
  | { type: 'held'; operation: OperationName; heldMs: number; ratePerSecond: number };

export interface ClientOptions {
  /** Base address without the version prefix, e.g. `https://api.example.com` or `http://127.0.0.1:4010`. */
  baseUrl: string;
  token: string;
  /** Default `x-account-id` for account-scoped operations. */
  accountId?: string;
  retry?: Partial<RetryPolicy>;
  /** Requests in flight at once (default 10): the cap under which the token's request rate is found. */
  concurrency?: number;
  /**
   * Find the token's request rate from the API's 429 answers and send at it (default true; adaptive-rate.ts).
   * false sends at `concurrency` alone and only backs off per request (CPLANE_RATE=fixed, for comparison).
   */
  adaptiveRate?: boolean;
  /**
   * Deadline of one request in ms (default 60 s): it covers the headers, the whole body and
   * every retry, so a server that never answers, or drips its body, fails by then.
   */
  timeoutMs?: number;
  /** Largest answer read, in bytes (default 32 MiB); a larger one fails without being read further. */
  maxResponseBytes?: number;
  /** Bounds of one paginated list (listAll); each defaults to DEFAULT_LIST_LIMITS. */
  listLimits?: Partial<ListLimits>;
  /** Send the token over plain http to a host other than this machine (refused by default). */
  allowInsecureHttp?: boolean;
  onEvent?: (event: ClientEvent) => void;
  /**
   * A limit shared with other clients (`plan --all`: one client per deployment): a request waits for a place in
   * it too, after its place in this client's own `concurrency`, so together they keep at most its limit in flight.
   */
  sharedLimiter?: Limiter;
}

export interface CallOptions {
  /** Idempotency-Key for a write. Writes get a fresh UUID when none is given, so every write is retry-safe. */
  idempotencyKey?: string;
  /** Overrides the client's account for this call. */
  accountId?: string;
}

/** A request whose body is already serialised: the applier saves these exact bytes before sending them. */
export interface RawRequest {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  bodyBytes?: string;
  idempotencyKey?: string;
  accountId?: string;
}

export interface ApiResponse<T> {
  data: T;
  status: number;
  requestId: string | undefined;
  attempts: number;
  /** Length of the answer's body in bytes. */
  bytes: number;
}

/**
 * How much one list may read (docs/security.md, "Bounds"): a server that always answers with a full page, or with
 * huge pages, would otherwise keep the walk going and growing without end. Far above any real account.
 */
export interface ListLimits {
  /** Pages requested for one list. */
  pages: number;
  /** Objects kept from one list. */
  objects: number;
  /** Bytes read for one list, all pages together. */
  bytes: number;
  /**
   * Bytes of one page's answer: smaller than the default maxResponseBytes, as a page holds at most MAX_PAGE_SIZE
   * objects of metadata; a maxResponseBytes the user set (CPLANE_MAX_RESPONSE_MB) applies to pages too.
   */
  pageBytes: number;
}

export const DEFAULT_LIST_LIMITS: ListLimits = {
  pages: 1_000,
  objects: 100_000,
  bytes: 64 * 1024 * 1024,
  pageBytes: 4 * 1024 * 1024,
};

type Paginated = { [K in OperationName]: Routes[K] extends { pages: string } ? K : never }[OperationName];
export type PaginatedOperation = Paginated;
/** The element type of a paginated list. */
export type ItemOf<K extends OperationName> = ResultOf<K> extends (infer I)[] ? I : ResultOf<K> extends { rows: (infer R)[] } ? R : never;

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Why an attempt was cut short by the client itself, as the abort reason of its signal. */
class DeadlinePassed extends Error {}

/** Largest page the API accepts (docs/api-assumptions.md); fewer pages means fewer requests. */
export const MAX_PAGE_SIZE = 200;

export class ApiClient {
  readonly identity: TokenIdentity;
  /** The account sent by default (`x-account-id`), when the client was made with one. */
  readonly accountId: string | undefined;
  private readonly transport: Transport;
  private readonly basePath: string;
  private readonly retry: RetryPolicy;
  private readonly limiter: Limiter;
  /** What this token may send, shared with every client of the process that uses the same token and address. */
  private readonly rate: AdaptiveRate | undefined;
  readonly limits: { timeoutMs: number; maxResponseBytes: number; list: ListLimits };
  /** The API's clock minus this machine's, from the `Date` header of the last answer (docs/api-assumptions.md). */
  private clockSkewMs = 0;

  constructor(private readonly options: ClientOptions) {
    if (!options.token) throw new TypeError('an API token is required (set CPLANE_TOKEN)');
    if (/[\s]/.test(options.token)) throw new TypeError('the API token contains white space; check CPLANE_TOKEN');
    const url = new URL(options.baseUrl);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !options.allowInsecureHttp)
      throw new InsecureTransportError(url.hostname);
    this.basePath = url.pathname.replace(/\/+$/, '') + '/v1';
    this.transport = createTransport(url, Math.max(options.concurrency ?? 10, 1));
    this.identity = identityOf(options.token);
    this.accountId = options.accountId || undefined;
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    this.limiter = new Limiter(options.concurrency ?? 10);
    const tokenDigest = createHash('sha256').update(options.token).digest('hex');
    this.rate = options.adaptiveRate === false ? undefined : adaptiveRateFor(options.baseUrl, tokenDigest);
    this.limits = {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      list: {
        ...DEFAULT_LIST_LIMITS,
        ...(options.maxResponseBytes !== undefined ? { pageBytes: options.maxResponseBytes } : {}),
        ...options.listLimits,
      },
    };
  }

  /** Calls one operation and returns its `data`. */
  async call<K extends OperationName>(operation: K, request: RequestOf<K>, options: CallOptions = {}): Promise<ResultOf<K>> {
    const req = request as { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
    const response = await this.send(operation, {
      path: req.path,
      query: req.query,
      bodyBytes: req.body === undefined ? undefined : JSON.stringify(req.body),
      idempotencyKey: options.idempotencyKey,
      accountId: options.accountId,
    });
    return response.data;
  }

  /** Sends one operation with a pre-serialised body, retrying as the policy allows with the same key and bytes. */
  async send<K extends OperationName>(
    operation: K,
    request: RawRequest,
    maxResponseBytes = this.limits.maxResponseBytes,
  ): Promise<ApiResponse<ResultOf<K>>> {
    const spec: Route = routes[operation];
    const path = this.basePath + fillPath(spec.path, request.path) + queryString(request.query);
    if (this.identity === 'service_account' && spec.identity === 'H') throw new IdentityRefusedError(operation, spec.method, spec.path);

    const write = spec.method !== 'GET';
    const idempotencyKey = write ? (request.idempotencyKey ?? randomUUID()) : undefined;
    const accountId = request.accountId ?? this.options.accountId;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.token}`,
      accept: 'application/json',
      'user-agent': `cplane/${version}`,
    };
    if (spec.accountScoped && accountId) headers['x-account-id'] = accountId;
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    if (request.bodyBytes !== undefined) headers['content-type'] = 'application/json';

    // One deadline for the whole request: headers, body and retries (a socket timeout only limits
    // the silence between two chunks, so a dripped body would never end without it). It
    // starts when the first attempt gets its turn, so waiting behind other requests does not count.
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const startDeadline = () => {
      timer ??= setTimeout(() => deadline.abort(new DeadlinePassed()), this.limits.timeoutMs);
    };
    try {
      return await this.attempts(
        operation,
        spec,
        path,
        headers,
        request.bodyBytes,
        write,
        idempotencyKey,
        deadline.signal,
        startDeadline,
        maxResponseBytes,
      );
    } catch (error) {
      if (deadline.signal.aborted && !(error instanceof ApiError) && !(error instanceof ResponseTooLargeError)) {
        throw new NetworkError(operation, 1, error, this.limits.timeoutMs);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempts<K extends OperationName>(
    operation: K,
    spec: Route,
    path: string,
    headers: Record<string, string>,
    bodyBytes: string | undefined,
    write: boolean,
    idempotencyKey: string | undefined,
    signal: AbortSignal,
    startDeadline: () => void,
    maxResponseBytes: number,
  ): Promise<ApiResponse<ResultOf<K>>> {
    for (let attempt = 1; ; attempt++) {
      this.emit({ type: 'request', operation, method: spec.method, path: spec.path, attempt });
      const started = performance.now();
      let answer: Answer;
      try {
        const exchange = () => {
          startDeadline();
          const tooLarge = () => new ResponseTooLargeError(operation, maxResponseBytes);
          return this.transport.exchange({ method: spec.method, path, headers, body: bodyBytes, signal }, maxResponseBytes, tooLarge);
        };
        answer = await this.limited(operation, exchange, signal);
      } catch (cause) {
        if (cause instanceof ResponseTooLargeError || signal.aborted) throw cause;
        // Only a transient network failure (a named code, see retry.ts) is worth another attempt; anything else
        // thrown here is a bug or a local limit and is not retried. Without an answer we cannot know whether a
        // write happened: repeat it only when the key makes that safe.
        const safe = !write || idempotencyKey !== undefined;
        if (safe && isTransient(this.retry, cause) && attempt < this.retry.maxAttempts) {
          const delayMs = backoffDelay(this.retry, attempt, undefined);
          this.emit({ type: 'retry', operation, attempt, delayMs, reason: cause instanceof Error ? cause.message : 'connection error' });
          await sleep(delayMs, undefined, { signal });
          continue;
        }
        throw new NetworkError(operation, attempt, cause);
      }

      const requestId = header(answer.headers, 'x-request-id');
      this.readServerClock(header(answer.headers, 'date'));
      this.emit({
        type: 'response',
        operation,
        status: answer.status,
        attempt,
        requestId,
        durationMs: Math.round(performance.now() - started),
      });
      const envelope = parseEnvelope(answer.text);
      if (answer.status >= 200 && answer.status < 300 && envelope?.ok === true) {
        return this.succeeded<K>(operation, answer, envelope.data, requestId, attempt);
      }
      const error = envelope?.ok === false ? envelope.error : undefined;
      if (this.retry.retryStatuses.includes(answer.status) && attempt < this.retry.maxAttempts) {
        const delayMs = backoffDelay(this.retry, attempt, header(answer.headers, 'retry-after'));
        this.emit({ type: 'retry', operation, attempt, delayMs, status: answer.status, reason: error?.message ?? `HTTP ${answer.status}` });
        await sleep(delayMs, undefined, { signal });
        continue;
      }
      throw new ApiError(
        operation,
        answer.status,
        error?.code ?? (answer.status < 300 ? 'invalid_response' : `http_${answer.status}`),
        error?.message ??
          (answer.status < 300 ? 'the API answered without a success envelope' : 'the API answered without an error envelope'),
        error?.details,
        (envelope?.ok === false ? envelope.requestId : undefined) ?? requestId,
        attempt,
        headers['x-account-id'],
      );
    }
  }

  /** One exchange within the client's concurrency limit, and the shared one when a fleet run gives it. */
  private limited(operation: OperationName, exchange: () => Promise<Answer>, signal: AbortSignal): Promise<Answer> {
    const shared = this.options.sharedLimiter;
    return this.limiter.run(() =>
      shared ? shared.run(() => this.paced(operation, exchange, signal)) : this.paced(operation, exchange, signal),
    );
  }

  /** A success envelope: its data, once checked against the operation's result schema. */
  private async succeeded<K extends OperationName>(
    operation: K,
    answer: Answer,
    data: unknown,
    requestId: string | undefined,
    attempt: number,
  ): Promise<ApiResponse<ResultOf<K>>> {
    const problem = await resultProblem(operation, data);
    if (problem) {
      const message = `the answer does not match the API spec: ${problem}`;
      throw new ApiError(operation, answer.status, 'invalid_response', message, undefined, requestId, attempt);
    }
    const bytes = Buffer.byteLength(answer.text);
    return { data: data as ResultOf<K>, status: answer.status, requestId, attempts: attempt, bytes };
  }

  /** Sends at the token's rate: waits for its turn, then tells the rate how the API answered. */
  private async paced(operation: OperationName, exchange: () => Promise<Answer>, signal: AbortSignal): Promise<Answer> {
    const rate = this.rate;
    if (!rate) return exchange();
    const turn = await rate.turn(signal);
    if (turn.ratePerSecond !== undefined && turn.heldMs > 0)
      this.emit({ type: 'held', operation, heldMs: turn.heldMs, ratePerSecond: turn.ratePerSecond });
    let answer: Answer;
    try {
      answer = await exchange();
    } catch (error) {
      rate.unanswered(turn);
      throw error;
    }
    const changed = rate.answered(turn, answer.status === 429);
    if (changed !== undefined) this.emit({ type: 'rate', operation, ratePerSecond: changed });
    return answer;
  }

  /**
   * The one pagination walker: reads every page of a list (limit/offset) and returns all items in order.
   * The API pages by offset with no total for most lists, so a plain walk waits one round trip per page;
   * when the caller knows roughly how many objects to expect (from state), those pages are requested
   * together (the limiter bounds how many are in flight), and the walk continues one page at a time only
   * past the last full page. The walk stops with a ListTooLargeError past the client's list limits.
   */
  async listAll<K extends PaginatedOperation>(
    operation: K,
    request: RequestOf<K>,
    options: CallOptions & { pageSize?: number; expected?: number } = {},
  ): Promise<ItemOf<K>[]> {
    const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
    const req = request as { path?: Record<string, string>; query?: Record<string, unknown> };
    const limits = this.limits.list;
    let total: number | undefined;
    const read = { pages: 0, objects: 0, bytes: 0 };
    const check = () => {
      for (const bound of ['pages', 'objects', 'bytes'] as const) {
        if (read[bound] > limits[bound]) throw new ListTooLargeError(operation, bound, limits[bound]);
      }
    };
    const page = async (index: number): Promise<ItemOf<K>[]> => {
      read.pages++;
      check();
      const response = await this.send(
        operation,
        { path: req.path, query: { ...req.query, limit: pageSize, offset: index * pageSize }, accountId: options.accountId },
        limits.pageBytes,
      );
      const data = response.data as unknown;
      if (!Array.isArray(data)) total = (data as { total: number }).total;
      const items = (Array.isArray(data) ? data : (data as { rows: unknown[] }).rows) as ItemOf<K>[];
      read.objects += items.length;
      read.bytes += response.bytes;
      check();
      return items;
    };
    const more = (pages: ItemOf<K>[][]) =>
      (pages.at(-1)?.length ?? 0) === pageSize && (total === undefined || pages.length * pageSize < total);
    // One more object than expected still fits: a page that comes back full means there may be more.
    const first = Math.max(1, Math.ceil(((options.expected ?? 0) + 1) / pageSize));
    const pages = await Promise.all(Array.from({ length: first }, (_, i) => page(i)));
    for (let next = first; more(pages); next++) pages.push(await page(next));
    return pages.flat();
  }

  async close(): Promise<void> {
    this.transport.close();
  }

  /**
   * The API's current time: this machine's clock corrected by the `Date` header of the last answer (to the
   * second). Expiry and due dates are the API's, so they are compared with its clock, not this machine's.
   */
  serverNow(): Date {
    return new Date(Date.now() + this.clockSkewMs);
  }

  private readServerClock(date: string | undefined): void {
    const at = date === undefined ? Number.NaN : Date.parse(date);
    if (Number.isFinite(at)) this.clockSkewMs = at - Date.now();
  }

  private emit(event: ClientEvent): void {
    this.options.onEvent?.(event);
  }
}

export function createClient(options: ClientOptions): ApiClient {
  return new ApiClient(options);
}

type Envelope =
  { ok: true; data?: unknown } | { ok: false; error?: { code?: string; message?: string; details?: unknown }; requestId?: string };

function parseEnvelope(text: string): Envelope | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && 'ok' in value ? (value as Envelope) : undefined;
  } catch {
    return undefined;
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Booleans and numbers as their JSON text, arrays comma-joined, undefined left out. */
export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
