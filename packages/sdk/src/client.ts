/**
 * The SDK's client of the control-plane API: only the operations reading needs (a record's `fields`, and the
 * caller's accounts), over the same transport and retry policy as cplane's own client (./transport.ts,
 * ./retry.ts). The bearer token is only ever put in the Authorization header: never in a URL, an error or a log.
 * Every answer is checked for the shape reading relies on before it is used (the server is untrusted).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, NetworkError } from './errors.js';
import type { RecordFields } from './read-value.js';
import { backoffDelay, defaultRetryPolicy, isTransient, type RetryPolicy } from './retry.js';
import { createTransport, type Answer, type Transport } from './transport.js';

export type TokenIdentity = 'human' | 'service_account';

/** Identity of a token, from its prefix (spec, Authentication 2 and 3). */
export function identityOf(token: string): TokenIdentity {
  return token.startsWith('sk-svc-sa-') ? 'service_account' : 'human';
}

/** An account the caller can act in (`GET /accounts`). */
export interface Account {
  account_id: string;
  name: string;
}

/** The request and result of each operation the SDK sends. */
export interface ReaderOperations {
  readRecord: { request: { path: { id: string }; body: { scope: 'fields'[] } }; result: { fields?: RecordFields | null } };
  listAccounts: { request: Record<string, never>; result: readonly Account[] };
  listRecords: { request: { query: { limit: number; offset: number } }; result: readonly RecordVersionRow[] };
}

/** What the SDK reads of a row of `GET /records` (the rest of the metadata is ignored). */
export interface RecordVersionRow {
  record_id: string;
  current_version: number | null;
  /** When the record last changed (a value, a grant, its metadata): a watcher checks a version the list keeps while this moves. */
  updated_at?: string;
}

/**
 * What reading needs of a client: the SDK's own, or cplane's typed client of every operation (`cplane/sdk`).
 * `accountId` is the account the client sends by default, when it was given one. (One method per operation,
 * joined, rather than overloads: a generic client of every operation is then assignable to it.)
 */
export type ReaderClient = { readonly identity: TokenIdentity; readonly accountId?: string | undefined } & {
  call(
    operation: 'readRecord',
    request: ReaderOperations['readRecord']['request'],
    options?: { accountId?: string },
  ): Promise<ReaderOperations['readRecord']['result']>;
} & {
  call(
    operation: 'listAccounts',
    request: ReaderOperations['listAccounts']['request'],
  ): Promise<ReaderOperations['listAccounts']['result']>;
};

export interface ClientOptions {
  /** The API's address without the version prefix, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** A Service Account token (`sk-svc-sa-…`), or a personal access token. */
  token: string;
  /** The account of the records read (`x-account-id`); found from the token when left out (docs/sdk.md). */
  accountId?: string | undefined;
  /** Deadline of one call in ms, retries included (default 60 s). */
  timeoutMs?: number;
  /** Largest answer read, in bytes (default 8 MiB). */
  maxResponseBytes?: number;
  /** Send the token over plain http to a host other than this machine (refused by default). */
  allowInsecureHttp?: boolean;
  retry?: Partial<RetryPolicy>;
}

const routes: Record<
  keyof ReaderOperations,
  { method: string; path: string; accountScoped: boolean; check: (data: unknown) => string | undefined }
> = {
  readRecord: {
    method: 'POST',
    path: '/records/{id}/read',
    accountScoped: true,
    check: (data) => (isObject(data) ? fieldsProblem(data.fields) : 'the result is not an object'),
  },
  listAccounts: { method: 'GET', path: '/accounts', accountScoped: false, check: accountsProblem },
  listRecords: { method: 'GET', path: '/records', accountScoped: true, check: recordRowsProblem },
};

/** Hosts that are this machine: http to them cannot be read on a network path. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

class DeadlinePassed extends Error {}

export class Client {
  readonly identity: TokenIdentity;
  readonly accountId: string | undefined;
  private readonly transport: Transport;
  private readonly basePath: string;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: ClientOptions) {
    if (!options.token) throw new TypeError('an API token is required: the Service Account token (sk-svc-sa-…)');
    if (/\s/.test(options.token)) throw new TypeError('the API token contains white space: copy it again without spaces or line breaks');
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`the base URL must be http(s), not ${url.protocol}`);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !options.allowInsecureHttp) {
      throw new TypeError(
        `refusing to send the API token over plain http to ${url.hostname}: use https (or allowInsecureHttp: true on a trusted network)`,
      );
    }
    this.basePath = url.pathname.replace(/\/+$/, '') + '/v1';
    this.transport = createTransport(url, 4);
    this.identity = identityOf(options.token);
    this.accountId = options.accountId || undefined;
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  }

  call(
    operation: 'readRecord',
    request: ReaderOperations['readRecord']['request'],
    options?: { accountId?: string },
  ): Promise<ReaderOperations['readRecord']['result']>;
  call(operation: 'listAccounts', request: Record<string, never>): Promise<readonly Account[]>;
  call(
    operation: 'listRecords',
    request: ReaderOperations['listRecords']['request'],
    options?: { accountId?: string },
  ): Promise<ReaderOperations['listRecords']['result']>;
  async call(
    operation: keyof ReaderOperations,
    request: { path?: { id: string }; query?: Record<string, number>; body?: unknown },
    options: { accountId?: string } = {},
  ): Promise<unknown> {
    const route = routes[operation];
    const query = request.query
      ? `?${new URLSearchParams(Object.entries(request.query).map(([name, value]): [string, string] => [name, String(value)])).toString()}`
      : '';
    const path = this.basePath + route.path.replace('{id}', encodeURIComponent(request.path?.id ?? '')) + query;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.token}`,
      accept: 'application/json',
      'user-agent': '@cplane/sdk',
    };
    const accountId = options.accountId ?? this.accountId;
    if (route.accountScoped && accountId) headers['x-account-id'] = accountId;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    // A POST read appends an audit row: a key makes a retry of it safe (spec, Idempotency).
    if (route.method !== 'GET') headers['idempotency-key'] = randomUUID();

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DeadlinePassed()), this.timeoutMs);
    try {
      return await this.attempts(operation, route, path, headers, body, deadline.signal);
    } catch (error) {
      if (deadline.signal.aborted && !(error instanceof ApiError)) throw new NetworkError(operation, 1, error, this.timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempts(
    operation: string,
    route: (typeof routes)[keyof ReaderOperations],
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      let answer: Answer;
      try {
        const tooLarge = () =>
          new ApiError(operation, 0, 'response_too_large', `the answer is larger than ${this.maxResponseBytes} bytes`, undefined, attempt);
        answer = await this.transport.exchange({ method: route.method, path, headers, body, signal }, this.maxResponseBytes, tooLarge);
      } catch (cause) {
        if (cause instanceof ApiError || signal.aborted) throw cause;
        if (isTransient(this.retry, cause) && attempt < this.retry.maxAttempts) {
          await sleep(backoffDelay(this.retry, attempt, undefined), undefined, { signal });
          continue;
        }
        throw new NetworkError(operation, attempt, cause);
      }
      const requestId = header(answer.headers['x-request-id']);
      const envelope = parseEnvelope(answer.text);
      if (answer.status >= 200 && answer.status < 300 && envelope?.ok === true) {
        const problem = route.check(envelope.data);
        if (problem)
          throw new ApiError(
            operation,
            answer.status,
            'invalid_response',
            `the answer does not match the API spec: ${problem}`,
            requestId,
            attempt,
          );
        return envelope.data;
      }
      if (this.retry.retryStatuses.includes(answer.status) && attempt < this.retry.maxAttempts) {
        await sleep(backoffDelay(this.retry, attempt, header(answer.headers['retry-after'])), undefined, { signal });
        continue;
      }
      const error = envelope?.ok === false && isObject(envelope.error) ? envelope.error : undefined;
      const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
      throw new ApiError(
        operation,
        answer.status,
        text(error?.code) ?? (answer.status < 300 ? 'invalid_response' : `http_${answer.status}`),
        text(error?.message) ??
          (answer.status < 300 ? 'the API answered without a success envelope' : 'the API answered without an error envelope'),
        (envelope?.ok === false ? text(envelope.requestId) : undefined) ?? requestId,
        attempt,
      );
    }
  }

  /** Closes the client's connections; the client is not used after. */
  async close(): Promise<void> {
    this.transport.close();
  }
}

/** A client of the control-plane API for reading secrets (docs/sdk.md). */
export function createClient(options: ClientOptions): Client {
  return new Client(options);
}

type Envelope = { ok: true; data?: unknown } | { ok: false; error?: unknown; requestId?: unknown };

function parseEnvelope(text: string): Envelope | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) && typeof value.ok === 'boolean' ? (value as Envelope) : undefined;
  } catch {
    return undefined;
  }
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Why `fields` is not what decryption reads (absent is fine: a record without a value). */
function fieldsProblem(fields: unknown): string | undefined {
  if (fields === undefined || fields === null) return undefined;
  if (!isObject(fields)) return 'fields is not an object';
  if (!Number.isSafeInteger(fields.version) || (fields.version as number) < 1) return 'fields.version is not a positive whole number';
  if (typeof fields.ciphertext !== 'string') return 'fields.ciphertext is not a string';
  const wrapper = fields.wrapper;
  if (!isObject(wrapper)) return 'fields.wrapper is not an object';
  for (const name of ['alg', 'keyId', 'wrappedDek'] as const)
    if (typeof wrapper[name] !== 'string') return `fields.wrapper.${name} is not a string`;
  if (wrapper.nonce !== undefined && typeof wrapper.nonce !== 'string') return 'fields.wrapper.nonce is not a string';
  return undefined;
}

function accountsProblem(data: unknown): string | undefined {
  if (!Array.isArray(data)) return 'the result is not a list';
  const bad = data.findIndex((a) => !isObject(a) || typeof a.account_id !== 'string' || typeof a.name !== 'string');
  return bad === -1 ? undefined : `item ${bad} is not an account {account_id, name}`;
}

function recordRowsProblem(data: unknown): string | undefined {
  if (!Array.isArray(data)) return 'the result is not a list';
  const bad = data.findIndex(
    (r) =>
      !isObject(r) ||
      typeof r.record_id !== 'string' ||
      !(r.current_version === null || (Number.isSafeInteger(r.current_version) && (r.current_version as number) >= 1)) ||
      !(r.updated_at === undefined || typeof r.updated_at === 'string'),
  );
  return bad === -1 ? undefined : `item ${bad} is not a record {record_id, current_version}`;
}
