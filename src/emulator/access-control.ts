/**
 * Who is calling and what they may do: bearer authentication (PAT or Service
 * Account token), the refusals of the spec (token in the query string, two
 * identities in one request, Service Account on a human-only operation or while
 * inactive), account membership from `x-account-id`, and role permissions with
 * record ownership substituting where the table says so.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { OperationSpec } from '../api/operations.js';
import type { Caller } from './handler-call.js';
import { badRequest, forbidden, HttpError, invalid } from './errors.js';
import type { Db } from './store.js';
import { isUuid } from './validate.js';

/** A request must never carry a token in its URL (spec, Authentication 4). */
export function refuseTokenInQuery(params: URLSearchParams): void {
  for (const [name, value] of params) {
    if (name === 'access_token' || name === 'token' || value.startsWith('sk-svc-')) {
      throw badRequest('token_in_query_string', [`query: parameter "${name}" carries a token; send it only in the Authorization header`]);
    }
  }
}

export function authenticate(headers: NodeJS.Dict<string[]>, db: Db, now: Date): Caller {
  const authorization = headers['authorization'] ?? [];
  const saHeader = headers['x-service-account-token'] ?? [];
  if (authorization.length > 1 || (authorization.length === 1 && saHeader.length > 0)) throw badRequest('multiple_identities');
  const value = authorization[0]?.trim() ?? '';
  if ((value.match(/bearer/gi) ?? []).length > 1) throw badRequest('multiple_identities');
  const match = /^Bearer\s+(\S+)$/i.exec(value);
  if (!match) throw new HttpError(401, 'missing_bearer_token');
  const token = match[1]!;
  if (token.startsWith('sk-svc-sa-')) {
    const row = db.saTokens.find((t) => t.token === token);
    if (!row) throw new HttpError(401, 'invalid_pat');
    return { kind: 'service_account', serviceAccountId: row.service_account_id, token };
  }
  const pat = token.startsWith('sk-svc-pat-') ? db.pats.find((t) => t.token === token) : undefined;
  if (!pat) throw new HttpError(401, 'invalid_pat');
  if (pat.expires_at !== null && Date.parse(pat.expires_at) <= now.getTime()) throw new HttpError(401, 'pat_expired');
  return { kind: 'user', userId: pat.user_id, token };
}

/** Service Accounts: only while active, and only on the operations marked SA. */
export function checkIdentity(caller: Caller, spec: OperationSpec, db: Db): void {
  if (caller.kind !== 'service_account') return;
  const sa = db.serviceAccounts.find((s) => s.service_account_id === caller.serviceAccountId);
  if (!sa || sa.status !== 'active') throw forbidden('service_account_inactive');
  if (spec.identity === 'H') throw forbidden('not_authorized');
}

/** The `x-account-id` account, checked to be one the caller belongs to (a Service Account's own without it). */
export function resolveAccount(headers: IncomingHttpHeaders, caller: Caller, db: Db): string {
  const raw = headers['x-account-id'];
  // A Service Account belongs to one account, and may not list accounts (human-only): without the header, it
  // acts in its own (docs/api-assumptions.md).
  if ((raw === undefined || raw === '') && caller.kind === 'service_account') {
    const own = db.serviceAccounts.find((s) => s.service_account_id === caller.serviceAccountId)?.account_id;
    if (own) return own;
  }
  if (raw === undefined || raw === '') throw badRequest('account_id_required', ['header: x-account-id is required for this operation']);
  if (Array.isArray(raw) || raw.includes(',')) throw invalid('header: x-account-id must be given once');
  if (!isUuid(raw)) throw invalid('header: x-account-id must be a uuid');
  const member =
    caller.kind === 'user'
      ? db.memberships.some((m) => m.account_id === raw && m.user_id === caller.userId)
      : db.serviceAccounts.some((s) => s.service_account_id === caller.serviceAccountId && s.account_id === raw);
  if (!member) throw forbidden('not_account_member');
  return raw;
}

/** Permissions of the caller's role in the account. */
export function permissionsOf(caller: Caller, accountId: string, db: Db): Set<string> {
  const roleId =
    caller.kind === 'user'
      ? db.memberships.find((m) => m.account_id === accountId && m.user_id === caller.userId)?.role_id
      : db.serviceAccounts.find((s) => s.service_account_id === caller.serviceAccountId)?.role_id;
  return new Set(db.roles.find((r) => r.role_id === roleId)?.permissions ?? []);
}

/** `accountId` in a query or body may only repeat the header: it never selects another account. */
export function checkAccountIdMembers(accountId: string, ...sources: unknown[]): void {
  for (const source of sources) {
    if (source && typeof source === 'object' && 'accountId' in source && (source as { accountId: unknown }).accountId !== accountId) {
      throw forbidden('not_authorized');
    }
  }
}
