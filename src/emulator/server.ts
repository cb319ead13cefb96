/**
 * The request pipeline of the emulator, driven by the operation table:
 * faults -> route -> token in query -> authentication -> identity -> rate limit
 * -> idempotency -> account -> validation -> permission -> plan limit ->
 * handler. Handlers run synchronously on the in-memory database, so each
 * write is atomic. Every answer carries `x-request-id`; any unexpected
 * exception becomes 500 `internal_error` and the server carries on.
 * `GET /v1/openapi.json` answers the OpenAPI document of the table.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { operations, type OperationName, type OperationSpec } from '../api/operations.js';
import { authenticate, checkAccountIdMembers, checkIdentity, permissionsOf, refuseTokenInQuery, resolveAccount } from './access-control.js';
import type { Caller, HandlerCall } from './handler-call.js';
import { codeOfStatus, conflict, forbidden, HttpError } from './errors.js';
import type { FaultInjector } from './faults.js';
import { handlers } from './handlers/index.js';
import { hashFingerprint, type IdempotencyStore } from './idempotency.js';
import type { Prng } from './prng.js';
import type { RateLimiter } from './rate-limit.js';
import { matchRoute } from './router.js';
import type { Db } from './store.js';
import { validateBody, validatePathParams, validateQuery } from './validate.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export interface PlanLimits {
  projects?: number;
  credentials?: number;
  gateways?: number;
}

export interface EmulatorStats {
  requests: number;
  byOperation: Record<OperationName, number>;
  /** Writes performed and committed (2xx answers to non-GET operations). */
  writes: number;
  /** Requests answered 429 by the rate limit (`--rate-limit`). */
  throttled: number;
}

/** Everything the pipeline works with; owned by the running emulator. */
export interface EmulatorState {
  db: Db;
  now: () => Date;
  rng: Prng;
  faults: FaultInjector;
  latencyMs: number;
  rateLimiter: RateLimiter;
  planLimits: PlanLimits;
  idempotency: IdempotencyStore;
  stats: EmulatorStats;
  /** Called after each committed write. */
  onWrite: () => void;
}

interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const success = (data: unknown): string => JSON.stringify(data === undefined ? { ok: true } : { ok: true, data });

function failure(error: HttpError, requestId: string): Answer {
  const envelope = {
    ok: false,
    error: { code: codeOfStatus[error.status] ?? 'error', message: error.reason, ...(error.details ? { details: error.details } : {}) },
    requestId,
  };
  return { status: error.status, body: JSON.stringify(envelope) };
}

function write(res: ServerResponse, answer: Answer, requestId: string, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
    ...answer.headers,
    ...extra,
  });
  res.end(answer.body);
}

/** Reads the body up to MAX_BODY_BYTES; undefined when it is larger. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    // A client that goes away mid-body gets no answer; the HttpError keeps it out of the internal-error log.
    req.on('error', () => reject(new HttpError(400, 'request_aborted')));
    req.on('close', () => {
      if (!req.complete) reject(new HttpError(400, 'request_aborted'));
    });
  });
}

const principalOf = (caller: Caller): string => (caller.kind === 'user' ? `user:${caller.userId}` : `sa:${caller.serviceAccountId}`);

export function createRequestListener(state: EmulatorState) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = `req_${randomUUID()}`;
    // The emulator's clock, not the machine's: cplane reads the API's time from this header (expiry, due dates).
    res.setHeader('date', state.now().toUTCString());
    handleRequest(state, req, res, requestId).catch((error: unknown) => {
      // Last line of defence: nothing a request does may stop the server.
      write(res, failure(new HttpError(500, 'internal_error'), requestId), requestId);
      if (!(error instanceof HttpError))
        process.stderr.write(`emulator: internal error on ${req.method} ${req.url?.split('?')[0]}: ${String(error)}\n`);
    });
  };
}

async function handleRequest(state: EmulatorState, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  state.stats.requests++;
  const method = req.method ?? 'GET';
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://emulator.invalid');
  } catch {
    write(res, failure(new HttpError(404, 'route_not_found'), requestId), requestId);
    return;
  }
  if (method === 'GET' && url.pathname === '/v1/openapi.json') {
    write(res, { status: 200, body: await openApiText() }, requestId);
    return;
  }
  const route = matchRoute(method, url.pathname);
  if (route.kind === 'operation') state.stats.byOperation[route.name]++;

  const latency = state.latencyMs + state.faults.latencyMs;
  if (latency > 0) await sleep(latency);
  if (answeredByFault(state, req, res, requestId)) return;
  const text = await boundedBody(req, res, requestId);
  if (text === undefined) return;

  if (route.kind !== 'operation') {
    const error = route.kind === 'not_found' ? new HttpError(404, 'route_not_found') : new HttpError(405, 'method_not_allowed');
    write(res, failure(error, requestId), requestId);
    return;
  }
  const name = route.name;
  const caller = admittedCaller(state, req, res, url, operations[name], requestId);
  if (caller === undefined) return;

  const isWrite = operations[name].method !== 'GET';
  const key = isWrite ? req.headers['idempotency-key'] : undefined;
  const idempotencyKey = typeof key === 'string' && key !== '' ? key : undefined;
  const fingerprint = idempotencyKey === undefined ? '' : hashFingerprint(`${method} ${url.pathname}${url.search}\n${text}`);
  if (idempotencyKey !== undefined) {
    const stored = state.idempotency.lookup(principalOf(caller), idempotencyKey, state.now().getTime());
    if (stored) {
      const answer =
        stored.fingerprint === fingerprint
          ? { status: stored.status, body: stored.body, headers: { 'idempotent-replayed': 'true' } }
          : failure(conflict('idempotency_key_reused_with_different_params'), requestId);
      write(res, answer, requestId);
      return;
    }
  }

  const answer = perform(state, name, route.params, url.searchParams, text, req, caller, requestId);
  if (idempotencyKey !== undefined) {
    const storedAt = state.now().getTime();
    state.idempotency.store(principalOf(caller), idempotencyKey, { fingerprint, status: answer.status, body: answer.body, storedAt });
  }
  if (isWrite && answer.status >= 200 && answer.status < 300 && !committed(state, res)) return;
  write(res, answer, requestId);
}

/** An injected status fault (`faults`), answered before the request is read: true when it answered. */
function answeredByFault(state: EmulatorState, req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
  const accountHeader = req.headers['x-account-id'];
  const injected = state.faults.statusFault(typeof accountHeader === 'string' ? accountHeader : undefined);
  if (injected === undefined) return false;
  req.resume();
  const reason = injected === 429 ? 'Too many requests' : injected === 503 ? 'service_unavailable' : 'internal_error';
  write(res, failure(new HttpError(injected, reason), requestId), requestId, injected === 429 ? { 'retry-after': '1' } : {});
  return true;
}

/** The request's body within MAX_BODY_BYTES, or undefined once a 413 is answered (declared or found too large). */
async function boundedBody(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<string | undefined> {
  const tooLarge = () =>
    write(res, failure(new HttpError(413, 'request_body_too_large', [`body: at most ${MAX_BODY_BYTES} bytes`]), requestId), requestId, {
      connection: 'close',
    });
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) {
    tooLarge();
    req.resume();
    return undefined;
  }
  const text = await readBody(req);
  if (text === undefined) tooLarge();
  return text;
}

/** Who calls, once authenticated, allowed this operation's identity and within the rate limit; undefined once refused. */
function admittedCaller(
  state: EmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  spec: OperationSpec,
  requestId: string,
): Caller | undefined {
  let caller: Caller;
  try {
    refuseTokenInQuery(url.searchParams);
    caller = authenticate(req.headersDistinct, state.db, state.now());
    checkIdentity(caller, spec, state.db);
  } catch (error) {
    write(res, toAnswer(error, requestId), requestId);
    return undefined;
  }
  const retryAfter = state.rateLimiter.check(caller.token, state.now().getTime());
  if (retryAfter !== undefined) {
    state.stats.throttled++;
    write(res, failure(new HttpError(429, 'Too many requests'), requestId), requestId, { 'retry-after': String(retryAfter) });
    return undefined;
  }
  return caller;
}

/** Counts a committed write; false when a drop fault then cuts the connection (the write done, never heard of). */
function committed(state: EmulatorState, res: ServerResponse): boolean {
  state.stats.writes++;
  state.onWrite();
  if (!state.faults.dropFault()) return true;
  res.socket?.destroy();
  return false;
}

let openApi: Promise<string> | undefined;
/** The OpenAPI document of the table, generated on the first request for it (kept out of the emulator's start-up). */
function openApiText(): Promise<string> {
  openApi ??= import('../api/openapi.js').then(({ openApiDocument }) => JSON.stringify(openApiDocument()));
  return openApi;
}

function toAnswer(error: unknown, requestId: string): Answer {
  if (error instanceof HttpError) return failure(error, requestId);
  process.stderr.write(`emulator: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return failure(new HttpError(500, 'internal_error'), requestId);
}

function perform(
  state: EmulatorState,
  name: OperationName,
  params: Record<string, string>,
  search: URLSearchParams,
  text: string,
  req: IncomingMessage,
  caller: Caller,
  requestId: string,
): Answer {
  const spec = operations[name];
  try {
    const accountId = spec.accountScoped ? resolveAccount(req.headers, caller, state.db) : '';
    validatePathParams(params);
    const query = validateQuery(name, search);
    const body = validateBody(name, text);
    if (spec.accountScoped) checkAccountIdMembers(accountId, query, body);
    const permissions = spec.accountScoped ? permissionsOf(caller, accountId, state.db) : new Set<string>();
    if (spec.accountScoped && !permissions.has(spec.permission)) {
      const recordId = name === 'grantServiceAccount' ? (body as { recordId: string }).recordId : params['id'];
      const owns =
        'ownerMay' in spec &&
        spec.ownerMay &&
        caller.kind === 'user' &&
        state.db.records.some((r) => r.record_id === recordId && r.owner_user_id === caller.userId);
      if (!owns) throw forbidden('insufficient_permission');
    }
    if ('planLimited' in spec) checkPlanLimit(state, spec.planLimited, accountId);
    const call: HandlerCall<OperationName> = {
      db: state.db,
      now: state.now(),
      caller,
      accountId,
      params,
      query: query as never,
      body: body as never,
      can: (permission) => permissions.has(permission),
      rng: state.rng,
    };
    const handler = handlers[name] as (call: HandlerCall<OperationName>) => unknown;
    return { status: 200, body: success(handler(call)) };
  } catch (error) {
    return toAnswer(error, requestId);
  }
}

function checkPlanLimit(state: EmulatorState, kind: 'projects' | 'credentials' | 'gateways', accountId: string): void {
  const limit = state.planLimits[kind];
  if (limit === undefined) return;
  const { db } = state;
  const used =
    kind === 'projects'
      ? db.projects.filter((p) => p.account_id === accountId && !p.archived).length
      : kind === 'credentials'
        ? db.credentials.filter((c) => c.account_id === accountId && c.status === 'active').length
        : db.gateways.filter((g) => g.account_id === accountId && g.status === 'enabled').length;
  if (used >= limit) throw conflict('plan_limit_reached');
}
