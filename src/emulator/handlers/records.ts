/**
 * Records: encrypted values the service stores as ciphertext plus wrapper,
 * with value versions (create, version, rotate, rollback), metadata, archive
 * state, ownership and grants to users, groups and Service Accounts. Every
 * write (and every read of the value) appends audit rows.
 */
import type { OperationName } from '../../api/operations.js';
import type { EncryptedValueT, RecordMetaT } from '../../api/shapes.js';
import { audit, newId, owned, page, userOf, type HandlerContext, type Handlers } from '../context.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { checkWrapper } from '../keys.js';
import type { Db, RecordRow } from '../store.js';

export function recordMeta(record: RecordRow): RecordMetaT {
  const { versions: _v, user_grants: users, group_grants: groups, service_account_grants: serviceAccounts, ...meta } = record;
  const ids = (grants: Record<string, string>) => Object.keys(grants).sort();
  return { ...meta, tags: [...meta.tags], grants: { user_ids: ids(users), group_ids: ids(groups), service_account_ids: ids(serviceAccounts) } };
}

type Ctx = Pick<HandlerContext<OperationName>, 'db' | 'accountId' | 'now' | 'caller'>;

function findRecord(ctx: Ctx, id: string): RecordRow {
  return owned(ctx.db.records, 'record_id', id, ctx.accountId, 'record_not_found');
}

function writableRecord(ctx: Ctx, id: string): RecordRow {
  const record = findRecord(ctx, id);
  if (record.archived) throw conflict('record_archived');
  return record;
}

function addVersion(ctx: Ctx, record: RecordRow, value: EncryptedValueT, reason: string): number {
  const version = (record.versions.at(-1)?.version ?? 0) + 1;
  const at = ctx.now.toISOString();
  record.versions.push({
    version, reason, ciphertext: value.ciphertext, wrapper: { ...value.wrapper }, created_by: userOf(ctx.caller), created_at: at,
  });
  record.current_version = version;
  record.updated_at = at;
  return version;
}

function requireMember(db: Db, accountId: string, userId: string): void {
  if (!db.users.some((u) => u.user_id === userId)) throw notFound('user_not_found');
  if (!db.memberships.some((m) => m.account_id === accountId && m.user_id === userId)) throw badRequest('target_not_a_member');
}

function userGrant(db: Db, record: RecordRow, userId: string): string | undefined {
  const direct = record.user_grants[userId];
  if (direct !== undefined) return direct;
  const group = db.groups.find((g) => g.group_id in record.group_grants && g.member_ids.includes(userId));
  return group ? record.group_grants[group.group_id] : undefined;
}

function visible(db: Db, accountId: string, projectId: string | undefined, includeArchived: boolean | undefined): RecordRow[] {
  return db.records.filter(
    (r) => r.account_id === accountId && (projectId === undefined || r.project_id === projectId) && (includeArchived || !r.archived),
  );
}

export const recordHandlers = {
  listRecords: ({ db, accountId, query }) => page(visible(db, accountId, undefined, query.includeArchived), query).map(recordMeta),

  listProjectRecords: ({ db, accountId, params, query }) => {
    owned(db.projects, 'project_id', params.projectId!, accountId, 'project_not_found');
    return page(visible(db, accountId, params.projectId, query.includeArchived), query).map(recordMeta);
  },

  getRecord: (ctx) => recordMeta(findRecord(ctx, ctx.params.id!)),

  readRecord: (ctx) => {
    const record = findRecord(ctx, ctx.params.id!);
    const result: { record_id: string; meta?: RecordMetaT; fields?: { version: number; ciphertext: string; wrapper: RecordRow['versions'][number]['wrapper'] } | null } = {
      record_id: record.record_id,
    };
    if (ctx.body.scope.includes('meta')) result.meta = recordMeta(record);
    if (ctx.body.scope.includes('fields')) {
      const current = record.versions.find((v) => v.version === record.current_version);
      if (!current) {
        result.fields = null;
      } else {
        // The caller gets the data key wrapped for it: the owner the version's own wrapper, a Service
        // Account its grant, another user its direct share, else the share of a group it belongs to.
        const grant =
          ctx.caller.kind === 'service_account'
            ? record.service_account_grants[ctx.caller.serviceAccountId]
            : record.owner_user_id === ctx.caller.userId
              ? undefined
              : userGrant(ctx.db, record, ctx.caller.userId);
        if (ctx.caller.kind === 'service_account' && grant === undefined) throw conflict('service_account_grant_not_found');
        result.fields = { version: current.version, ciphertext: current.ciphertext, wrapper: { ...current.wrapper, ...(grant ? { wrappedDek: grant } : {}) } };
      }
      audit(ctx, record, 'read');
    }
    return result;
  },

  listRecordVersions: (ctx) =>
    findRecord(ctx, ctx.params.id!).versions.map((v) => ({ version: v.version, reason: v.reason, created_by: v.created_by, created_at: v.created_at })),

  createRecord: (ctx) => {
    const { db, accountId, body, now } = ctx;
    const project = owned(db.projects, 'project_id', body.projectId, accountId, 'project_not_found');
    if (project.archived) throw conflict('project_archived');
    const existing = db.records.find((r) => r.project_id === body.projectId && r.name === body.name);
    if (existing) {
      // Upsert by (project, name): metadata members given replace the stored ones, a value adds a version.
      if (existing.archived) throw conflict('record_archived');
      if (body.tags !== undefined) existing.tags = [...body.tags];
      if (body.secretDueAt !== undefined) existing.secret_due_at = body.secretDueAt;
      if (body.rotationIntervalDays !== undefined) existing.rotation_interval_days = body.rotationIntervalDays;
      if (body.format !== undefined) existing.format = body.format;
      existing.updated_at = now.toISOString();
      audit(ctx, existing, 'update');
      if (body.value) {
        addVersion(ctx, existing, body.value, 'update');
        audit(ctx, existing, 'version');
      }
      return { record_id: existing.record_id, created: false, version: existing.current_version };
    }
    const at = now.toISOString();
    const record: RecordRow = {
      record_id: newId(), account_id: accountId, project_id: project.project_id, name: body.name, tags: [...(body.tags ?? [])],
      secret_due_at: body.secretDueAt ?? null, rotation_interval_days: body.rotationIntervalDays ?? null, format: body.format ?? 'text',
      owner_user_id: userOf(ctx.caller), current_version: null, archived: false, archived_at: null, created_at: at, updated_at: at,
      versions: [], user_grants: {}, group_grants: {}, service_account_grants: {},
    };
    db.records.push(record);
    audit(ctx, record, 'create');
    if (body.value) addVersion(ctx, record, body.value, 'create');
    return { record_id: record.record_id, created: true, version: record.current_version };
  },

  createRecordVersion: (ctx) => {
    const record = writableRecord(ctx, ctx.params.id!);
    const version = addVersion(ctx, record, ctx.body, 'version');
    audit(ctx, record, 'version');
    return { record_id: record.record_id, version };
  },

  rotateRecord: (ctx) => {
    const record = writableRecord(ctx, ctx.params.id!);
    const version = addVersion(ctx, record, ctx.body, 'rotate');
    audit(ctx, record, 'rotate');
    return { record_id: record.record_id, version };
  },

  rollbackRecord: (ctx) => {
    const record = writableRecord(ctx, ctx.params.id!);
    const target = record.versions.find((v) => v.version === ctx.body.version);
    if (!target) throw notFound('version_not_found');
    if (target.version === record.current_version) throw conflict('version_is_current');
    const version = addVersion(ctx, record, { ciphertext: target.ciphertext, wrapper: target.wrapper }, `rollback to ${target.version}`);
    audit(ctx, record, 'rollback');
    return { record_id: record.record_id, version };
  },

  updateRecord: (ctx) => {
    const { db, body } = ctx;
    const record = writableRecord(ctx, ctx.params.id!);
    if (body.name !== undefined && body.name !== record.name) {
      if (db.records.some((r) => r.project_id === record.project_id && r.name === body.name)) throw conflict('record_name_exists');
      record.name = body.name;
    }
    if (body.tags !== undefined) record.tags = [...body.tags];
    if (body.secretDueAt !== undefined) record.secret_due_at = body.secretDueAt;
    if (body.rotationIntervalDays !== undefined) record.rotation_interval_days = body.rotationIntervalDays;
    record.updated_at = ctx.now.toISOString();
    audit(ctx, record, 'update');
    return { ok: true as const };
  },

  archiveRecord: (ctx) => {
    const record = findRecord(ctx, ctx.params.id!);
    if (record.archived === ctx.body.archived) throw conflict(ctx.body.archived ? 'record_already_archived' : 'record_not_archived');
    const at = ctx.now.toISOString();
    Object.assign(record, { archived: ctx.body.archived, archived_at: ctx.body.archived ? at : null, updated_at: at });
    audit(ctx, record, ctx.body.archived ? 'archive' : 'unarchive');
    return recordMeta(record);
  },

  transferRecordOwnership: (ctx) => {
    const record = writableRecord(ctx, ctx.params.id!);
    requireMember(ctx.db, ctx.accountId, ctx.body.userId);
    if (record.owner_user_id === ctx.body.userId) throw conflict('already_owner');
    record.owner_user_id = ctx.body.userId;
    record.updated_at = ctx.now.toISOString();
    audit(ctx, record, 'transfer_ownership');
    return { record_id: record.record_id, owner_user_id: record.owner_user_id };
  },

  shareRecordWithUser: (ctx) => {
    const record = writableRecord(ctx, ctx.params.id!);
    requireMember(ctx.db, ctx.accountId, ctx.body.userId);
    if (!ctx.db.users.find((u) => u.user_id === ctx.body.userId)?.public_key) throw badRequest('recipient_public_key_not_found');
    checkWrapper(ctx.body.wrappedDek, record, ctx.body.userId);
    record.user_grants[ctx.body.userId] = ctx.body.wrappedDek;
    audit(ctx, record, 'share_user');
    return { recordId: record.record_id, userId: ctx.body.userId };
  },

  shareRecordWithGroup: (ctx) => {
    const record = writableRecord(ctx, ctx.params.id!);
    owned(ctx.db.groups, 'group_id', ctx.body.groupId, ctx.accountId, 'group_not_found');
    checkWrapper(ctx.body.wrappedDek, record, ctx.body.groupId);
    record.group_grants[ctx.body.groupId] = ctx.body.wrappedDek;
    audit(ctx, record, 'share_group');
    return { recordId: record.record_id, groupId: ctx.body.groupId };
  },

  revokeRecordUser: (ctx) => {
    const record = findRecord(ctx, ctx.params.id!);
    if (!(ctx.body.userId in record.user_grants)) throw conflict('direct_grant_not_found');
    delete record.user_grants[ctx.body.userId];
    audit(ctx, record, 'revoke_user');
    return { recordId: record.record_id, userId: ctx.body.userId };
  },

  revokeRecordGroup: (ctx) => {
    const record = findRecord(ctx, ctx.params.id!);
    owned(ctx.db.groups, 'group_id', ctx.body.groupId, ctx.accountId, 'group_not_found');
    if (!(ctx.body.groupId in record.group_grants)) throw conflict('group_grant_not_found');
    delete record.group_grants[ctx.body.groupId];
    audit(ctx, record, 'revoke_group');
    return { recordId: record.record_id, groupId: ctx.body.groupId };
  },

  revokeRecordServiceAccount: (ctx) => {
    const record = findRecord(ctx, ctx.params.id!);
    owned(ctx.db.serviceAccounts, 'service_account_id', ctx.body.serviceAccountId, ctx.accountId, 'service_account_not_found');
    if (!(ctx.body.serviceAccountId in record.service_account_grants)) throw conflict('service_account_grant_not_found');
    delete record.service_account_grants[ctx.body.serviceAccountId];
    audit(ctx, record, 'revoke_service_account');
    return { recordId: record.record_id, serviceAccountId: ctx.body.serviceAccountId };
  },

  grantServiceAccount: (ctx) => {
    const sa = owned(ctx.db.serviceAccounts, 'service_account_id', ctx.params.id!, ctx.accountId, 'service_account_not_found');
    if (sa.status !== 'active') throw conflict('service_account_inactive');
    const record = writableRecord(ctx, ctx.body.recordId);
    checkWrapper(ctx.body.wrappedDek, record, sa.service_account_id);
    record.service_account_grants[sa.service_account_id] = ctx.body.wrappedDek;
    audit(ctx, record, 'grant_service_account');
    return { recordId: record.record_id, serviceAccountId: sa.service_account_id };
  },
} satisfies Partial<Handlers>;
