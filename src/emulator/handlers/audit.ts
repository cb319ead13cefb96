/**
 * Record audit feeds: one record's trail, and the four account- or project-wide
 * feeds (anomalies, daily activity, alerts, access). Scope is `project` (with
 * `scopeId`) or `account`.
 */
import type { OperationName } from '../../api/operations.js';
import { omit, owned, page, type HandlerCall, type Handlers } from '../handler-call.js';
import { badRequest } from '../errors.js';
import type { AuditRowStored } from '../store.js';
import { isUuid } from '../validate.js';

/** Actions that count as access to a record (the record-access feed). */
const ACCESS_ACTIONS = [
  'read',
  'share_user',
  'share_group',
  'revoke_user',
  'revoke_group',
  'grant_service_account',
  'revoke_service_account',
];
const ALL_ACTIONS = new Set([
  ...ACCESS_ACTIONS,
  'create',
  'update',
  'version',
  'rotate',
  'rollback',
  'archive',
  'unarchive',
  'transfer_ownership',
]);

const auditView = (row: AuditRowStored) => omit(row, 'account_id');

type Ctx = Pick<HandlerCall<OperationName>, 'db' | 'accountId'>;

/** The rows' filter for `scopeType` + `scopeId`. */
function inScope(call: Ctx, query: { scopeType: string; scopeId?: string }): (row: { account_id: string; project_id: string }) => boolean {
  if (query.scopeType === 'account') {
    if (query.scopeId !== undefined && query.scopeId !== call.accountId)
      throw badRequest('invalid_scope', ['scopeId: must be the x-account-id account for scopeType=account']);
    return (row) => row.account_id === call.accountId;
  }
  if (query.scopeType !== 'project') throw badRequest('invalid_scope', ['scopeType: one of project, account']);
  if (!query.scopeId) throw badRequest('scope_id_required', ['scopeId: required for scopeType=project']);
  if (!isUuid(query.scopeId)) throw badRequest('invalid_scope', ['scopeId: must be a uuid']);
  const projectId = owned(call.db.projects, 'project_id', query.scopeId, call.accountId, 'project_not_found').project_id;
  return (row) => row.project_id === projectId;
}

export const auditHandlers = {
  listRecordAudit: ({ db, accountId, params, query }) => {
    const record = owned(db.records, 'record_id', params.id!, accountId, 'record_not_found');
    return page(
      db.audit.filter((a) => a.record_id === record.record_id),
      query,
    ).map(auditView);
  },

  listRecordAnomalies: (call) => {
    const scoped = inScope(call, call.query);
    return call.db.anomalies.filter(scoped).map((a) => omit(a, 'account_id', 'project_id'));
  },

  listRecordActivity: (call) => {
    const scoped = inScope(call, call.query);
    const day = call.query.day ?? call.now.toISOString().slice(0, 10);
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(day) ||
      Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ||
      new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day
    ) {
      throw badRequest('invalid_day', ['day: a date as YYYY-MM-DD']);
    }
    const counts = new Map<string, { record_id: string; action: string; count: number }>();
    for (const row of call.db.audit) {
      if (!row.record_id || !scoped(row) || !row.created_at.startsWith(day)) continue;
      const key = `${row.record_id} ${row.action}`;
      const entry = counts.get(key) ?? { record_id: row.record_id, action: row.action, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
    return [...counts.values()];
  },

  listRecordAlerts: (call) => {
    const scoped = inScope(call, call.query);
    return page(call.db.alerts.filter(scoped), call.query).map((a) => omit(a, 'account_id', 'project_id'));
  },

  listRecordAccess: (call) => {
    const scoped = inScope(call, call.query);
    const actions = call.query.actions === undefined ? ACCESS_ACTIONS : call.query.actions.split(',').map((a) => a.trim());
    const unknown = actions.filter((a) => !ALL_ACTIONS.has(a));
    if (unknown.length)
      throw badRequest(
        'invalid_actions',
        unknown.map((a) => `actions: unknown action "${a}"`),
      );
    return page(
      call.db.audit.filter((a) => scoped(a) && actions.includes(a.action)),
      call.query,
    ).map(auditView);
  },
} satisfies Partial<Handlers>;
