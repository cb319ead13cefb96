/**
 * One call of one operation, as `cplane api` and the MCP operation tools both
 * make it: prepared (checked against the table, the Idempotency-Key of a
 * write chosen, the write-only values of the body noted for redaction), then
 * sent with the one API client, which retries only as the spec allows.
 */
import { randomUUID } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import type { ApiError } from '../api/errors.js';
import { isReadOnly } from '../api/operation-docs.js';
import { operations, type OperationName, type OperationSpec } from '../api/operations.js';
import { checkRequest } from './request-check.js';
import { writeOnlyValues } from './safe-text.js';

export interface CallRequest {
  /** Path and query parameters by name. */
  params: Record<string, unknown>;
  /** The body; undefined when none was given. */
  body: unknown;
  /** Read every page of a paginated list. */
  allPages: boolean;
  /** The key given for a write; undefined to have one made. */
  idempotencyKey: string | undefined;
}

export interface PreparedCall {
  name: OperationName;
  path: Record<string, string>;
  query: Record<string, unknown> | undefined;
  body: unknown;
  allPages: boolean;
  /** The key the write carries (given or new); undefined for a read. */
  idempotencyKey: string | undefined;
  /** Whether the key was made here (and so must be shown, for a retry to reuse it). */
  keyIsNew: boolean;
  /** Everything wrong with the call: it is sent only when this is empty. */
  problems: string[];
  /** Write-only values of the body (provider secrets, OTel header values): redacted from all output. */
  secrets: string[];
}

export function prepareCall(name: OperationName, request: CallRequest): PreparedCall {
  const spec: OperationSpec = operations[name];
  const checked = checkRequest(name, request.params, request.body);
  const problems = [...checked.problems];
  if (request.allPages && !spec.pages) problems.push(`${name} is not a paginated list, so it has no pages to read`);
  if (request.allPages && checked.query && 'offset' in checked.query)
    problems.push('all pages are read from offset 0: leave out the offset parameter');
  // A read sent as a POST (readRecord) is still a read: retrying it is safe without a key, so none is chosen or shown.
  const write = !isReadOnly(name);
  if (request.idempotencyKey !== undefined && !write) problems.push(`${name} is a read: only writes carry an Idempotency-Key`);
  if (request.idempotencyKey === '') problems.push('the Idempotency-Key must not be empty');
  return {
    name,
    path: checked.path,
    query: checked.query,
    body: request.body,
    allPages: request.allPages,
    idempotencyKey: write ? (request.idempotencyKey ?? randomUUID()) : undefined,
    keyIsNew: write && request.idempotencyKey === undefined,
    problems,
    secrets: writeOnlyValues(spec.body, request.body),
  };
}

/** Sends a prepared call (without problems) and returns the `data` of the answer; throws the client's errors. */
export async function sendCall(client: ApiClient, call: PreparedCall): Promise<unknown> {
  if (call.allPages) {
    const { limit, ...rest } = call.query ?? {};
    const items = await client.listAll(
      call.name as never,
      { path: call.path, query: rest } as never,
      typeof limit === 'number' ? { pageSize: limit } : {},
    );
    // `rows` lists keep their shape, with the total of what was read.
    return (operations[call.name] as OperationSpec).pages === 'rows' ? { rows: items, total: items.length } : items;
  }
  const response = await client.send(call.name, {
    path: call.path,
    ...(call.query ? { query: call.query } : {}),
    ...(call.body !== undefined ? { bodyBytes: JSON.stringify(call.body) } : {}),
    ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
  });
  return response.data;
}

/** The API's error envelope as both faces show it. */
export const errorEnvelope = (error: ApiError) => ({
  status: error.status,
  code: error.code,
  reason: error.reason,
  ...(error.details !== undefined ? { details: error.details } : {}),
  requestId: error.requestId ?? null,
});
