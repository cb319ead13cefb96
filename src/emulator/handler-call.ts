/**
 * What a handler receives and the small helpers every handler area shares:
 * looking an object up inside the caller's account (unknown -> 404 with the
 * spec's reason, another account's -> 403 `not_authorized`), paging, and the
 * audit trail of record writes.
 */
import { randomUUID } from 'node:crypto';
import type { BodyOf, OperationName, QueryOf, ResultOf } from '../api/operations.js';
import { forbidden, notFound } from './errors.js';
import type { Prng } from './prng.js';
import type { AuditRowStored, Db, RecordRow } from './store.js';

export type Caller = { kind: 'user'; userId: string; token: string } | { kind: 'service_account'; serviceAccountId: string; token: string };

export interface HandlerCall<K extends OperationName> {
  db: Db;
  now: Date;
  caller: Caller;
  /** The `x-account-id` account (checked: the caller is a member); '' for operations outside any account. */
  accountId: string;
  params: Record<string, string>;
  query: QueryOf<K>;
  body: BodyOf<K>;
  /** Whether the caller's role in this account grants the permission. */
  can(permission: string): boolean;
  rng: Prng;
}

export type Handler<K extends OperationName> = (call: HandlerCall<K>) => ResultOf<K>;
export type Handlers = { [K in OperationName]: Handler<K> };

export const newId = (): string => randomUUID();

/**
 * Finds a row by id inside the caller's account. An id of another account is
 * denied, never reported missing, even when the caller can access both.
 */
export function owned<T extends { account_id: string }>(rows: T[], key: keyof T, id: string, accountId: string, missing: string): T {
  const row = rows.find((r) => r[key] === id);
  if (!row) throw notFound(missing);
  if (row.account_id !== accountId) throw forbidden('not_authorized');
  return row;
}

/** An area's own table of rows (`Db.tables`), made empty the first time it is asked for. */
export function tableOf<T>(db: Db, name: string): T[] {
  const tables = (db.tables ??= {});
  return (tables[name] ??= []) as T[];
}

/** Limit/offset paging in creation order; default page size 50 (the schema caps it at 200). */
export function page<T>(rows: T[], query: { limit?: number; offset?: number } | undefined): T[] {
  const offset = query?.offset ?? 0;
  return rows.slice(offset, offset + (query?.limit ?? 50));
}

export function actorOf(caller: Caller): { actor_type: 'user' | 'service_account'; actor_id: string } {
  return caller.kind === 'user'
    ? { actor_type: 'user', actor_id: caller.userId }
    : { actor_type: 'service_account', actor_id: caller.serviceAccountId };
}

/** Appends one audit row for a record (every record write, and reads). */
export function audit(call: Pick<HandlerCall<OperationName>, 'db' | 'now' | 'caller'>, record: RecordRow, action: string): void {
  const row: AuditRowStored = {
    audit_id: newId(),
    account_id: record.account_id,
    record_id: record.record_id,
    project_id: record.project_id,
    action,
    ...actorOf(call.caller),
    created_at: call.now.toISOString(),
  };
  call.db.audit.push(row);
}

/** The user behind a human token (human-only operations never see a Service Account). */
export function userOf(caller: Caller): string {
  return caller.kind === 'user' ? caller.userId : '';
}

/** Copies a row without the given internal fields. */
export function omit<T extends object, F extends keyof T>(row: T, ...fields: F[]): Omit<T, F> {
  const copy = { ...row };
  for (const field of fields) delete copy[field];
  return copy;
}
