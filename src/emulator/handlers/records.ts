/**
 * Records: encrypted values the service stores as ciphertext plus wrapper,
 * with value versions (create, version, rotate, rollback), metadata, archive
 * state, ownership and grants to users, groups and Service Accounts. Every
 * write (and every read of the value) appends audit rows.
 */
import type { OperationName } from '../../api/operations.js';
import type { EncryptedValueT, RecordMetaT } from '../../api/shapes.js';
import { audit, newId, owned, page, userOf, type HandlerCall, type Handlers } from '../handler-call.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { checkWrapper } from '../keys.js';
import type { Db, RecordRow } from '../store.js';

export function recordMeta(record: RecordRow): RecordMetaT {
  const { versions: _v, user_grants: users, group_grants: groups, service_account_grants: serviceAccounts, ...meta } = record;
  const ids = (grants: Record<string, string>) => Object.keys(grants).sort();
  return {
    ...meta,
    tags: [...meta.tags],
    grants: { user_ids: ids(users), group_ids: ids(groups), service_account_ids: ids(serviceAccounts) },
  };
}

type Ctx = Pick<HandlerCall<OperationName>, 'db' | 'accountId' | 'now' | 'caller'>;

function findRecord(call: Ctx, id: string): RecordRow {
  return owned(call.db.records, 'record_id', id, call.accountId, 'record_not_found');
}

function writableRecord(call: Ctx, id: string): RecordRow {
  const record = findRecord(call, id);
  if (record.archived) throw conflict('record_archived');
  return record;
}

function addVersion(call: Ctx, record: RecordRow, value: EncryptedValueT, reason: string): number {
  const version = (record.versions.at(-1)?.version ?? 0) + 1;
  const at = call.now.toISOString();
  record.versions.push({
    version,
    reason,
    ciphertext: value.ciphertext,
    wrapper: { ...value.wrapper },
    created_by: userOf(call.caller),
    created_at: at,
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

/** Removes a reader's wrapper from one of the record's grant maps, audited; a reader without one is a conflict. */
function revokeGrant(
  call: Ctx,
  record: RecordRow,
  grants: Record<string, unknown>,
  readerId: string,
  notFound: string,
  action: string,
): void {
  if (!(readerId in grants)) throw conflict(notFound);
  delete grants[readerId];
  audit(call, record, action);
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

  getRecord: (call) => recordMeta(findRecord(call, call.params.id!)),

  readRecord: (call) => {
    const record = findRecord(call, call.params.id!);
    const result: {
      record_id: string;
      meta?: RecordMetaT;
      fields?: { version: number; ciphertext: string; wrapper: RecordRow['versions'][number]['wrapper'] } | null;
    } = {
      record_id: record.record_id,
    };
    if (call.body.scope.includes('meta')) result.meta = recordMeta(record);
    if (call.body.scope.includes('fields')) {
      const current = record.versions.find((v) => v.version === record.current_version);
      if (!current) {
        result.fields = null;
      } else {
        // The caller gets the data key wrapped for it: the owner the version's own wrapper, a Service
        // Account its grant, another user its direct share, else the share of a group it belongs to.
        const grant =
          call.caller.kind === 'service_account'
            ? record.service_account_grants[call.caller.serviceAccountId]
            : record.owner_user_id === call.caller.userId
              ? undefined
              : userGrant(call.db, record, call.caller.userId);
        if (call.caller.kind === 'service_account' && grant === undefined) throw conflict('service_account_grant_not_found');
        result.fields = {
          version: current.version,
          ciphertext: current.ciphertext,
          wrapper: { ...current.wrapper, ...(grant ? { wrappedDek: grant } : {}) },
        };
      }
      audit(call, record, 'read');
    }
    return result;
  },

  listRecordVersions: (call) =>
    findRecord(call, call.params.id!).versions.map((v) => ({
      version: v.version,
      reason: v.reason,
      created_by: v.created_by,
      created_at: v.created_at,
    })),

  createRecord: (call) => {
    const { db, accountId, body, now } = call;
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
      audit(call, existing, 'update');
      if (body.value) {
        addVersion(call, existing, body.value, 'update');
        audit(call, existing, 'version');
      }
      return { record_id: existing.record_id, created: false, version: existing.current_version };
    }
    const at = now.toISOString();
    const record: RecordRow = {
      record_id: newId(),
      account_id: accountId,
      project_id: project.project_id,
      name: body.name,
      tags: [...(body.tags ?? [])],
      secret_due_at: body.secretDueAt ?? null,
      rotation_interval_days: body.rotationIntervalDays ?? null,
      format: body.format ?? 'text',
      owner_user_id: userOf(call.caller),
      current_version: null,
      archived: false,
      archived_at: null,
      created_at: at,
      updated_at: at,
      versions: [],
      user_grants: {},
      group_grants: {},
      service_account_grants: {},
    };
    db.records.push(record);
    audit(call, record, 'create');
    if (body.value) addVersion(call, record, body.value, 'create');
    return { record_id: record.record_id, created: true, version: record.current_version };
  },

  createRecordVersion: (call) => {
    const record = writableRecord(call, call.params.id!);
    const version = addVersion(call, record, call.body, 'version');
    audit(call, record, 'version');
    return { record_id: record.record_id, version };
  },

  rotateRecord: (call) => {
    const record = writableRecord(call, call.params.id!);
    const version = addVersion(call, record, call.body, 'rotate');
    audit(call, record, 'rotate');
    return { record_id: record.record_id, version };
  },

  rollbackRecord: (call) => {
    const record = writableRecord(call, call.params.id!);
    const target = record.versions.find((v) => v.version === call.body.version);
    if (!target) throw notFound('version_not_found');
    if (target.version === record.current_version) throw conflict('version_is_current');
    const version = addVersion(call, record, { ciphertext: target.ciphertext, wrapper: target.wrapper }, `rollback to ${target.version}`);
    audit(call, record, 'rollback');
    return { record_id: record.record_id, version };
  },

  updateRecord: (call) => {
    const { db, body } = call;
    const record = writableRecord(call, call.params.id!);
    if (body.name !== undefined && body.name !== record.name) {
      if (db.records.some((r) => r.project_id === record.project_id && r.name === body.name)) throw conflict('record_name_exists');
      record.name = body.name;
    }
    if (body.tags !== undefined) record.tags = [...body.tags];
    if (body.secretDueAt !== undefined) record.secret_due_at = body.secretDueAt;
    if (body.rotationIntervalDays !== undefined) record.rotation_interval_days = body.rotationIntervalDays;
    record.updated_at = call.now.toISOString();
    audit(call, record, 'update');
    return { ok: true as const };
  },

  archiveRecord: (call) => {
    const record = findRecord(call, call.params.id!);
    if (record.archived === call.body.archived) throw conflict(call.body.archived ? 'record_already_archived' : 'record_not_archived');
    const at = call.now.toISOString();
    Object.assign(record, { archived: call.body.archived, archived_at: call.body.archived ? at : null, updated_at: at });
    audit(call, record, call.body.archived ? 'archive' : 'unarchive');
    return recordMeta(record);
  },

  transferRecordOwnership: (call) => {
    const record = writableRecord(call, call.params.id!);
    requireMember(call.db, call.accountId, call.body.userId);
    if (record.owner_user_id === call.body.userId) throw conflict('already_owner');
    record.owner_user_id = call.body.userId;
    record.updated_at = call.now.toISOString();
    audit(call, record, 'transfer_ownership');
    return { record_id: record.record_id, owner_user_id: record.owner_user_id };
  },

  shareRecordWithUser: (call) => {
    const record = writableRecord(call, call.params.id!);
    requireMember(call.db, call.accountId, call.body.userId);
    if (!call.db.users.find((u) => u.user_id === call.body.userId)?.public_key) throw badRequest('recipient_public_key_not_found');
    checkWrapper(call.body.wrappedDek, record, call.body.userId);
    record.user_grants[call.body.userId] = call.body.wrappedDek;
    audit(call, record, 'share_user');
    return { recordId: record.record_id, userId: call.body.userId };
  },

  shareRecordWithGroup: (call) => {
    const record = writableRecord(call, call.params.id!);
    owned(call.db.groups, 'group_id', call.body.groupId, call.accountId, 'group_not_found');
    checkWrapper(call.body.wrappedDek, record, call.body.groupId);
    record.group_grants[call.body.groupId] = call.body.wrappedDek;
    audit(call, record, 'share_group');
    return { recordId: record.record_id, groupId: call.body.groupId };
  },

  revokeRecordUser: (call) => {
    const record = findRecord(call, call.params.id!);
    revokeGrant(call, record, record.user_grants, call.body.userId, 'direct_grant_not_found', 'revoke_user');
    return { recordId: record.record_id, userId: call.body.userId };
  },

  revokeRecordGroup: (call) => {
    const record = findRecord(call, call.params.id!);
    owned(call.db.groups, 'group_id', call.body.groupId, call.accountId, 'group_not_found');
    revokeGrant(call, record, record.group_grants, call.body.groupId, 'group_grant_not_found', 'revoke_group');
    return { recordId: record.record_id, groupId: call.body.groupId };
  },

  revokeRecordServiceAccount: (call) => {
    const record = findRecord(call, call.params.id!);
    owned(call.db.serviceAccounts, 'service_account_id', call.body.serviceAccountId, call.accountId, 'service_account_not_found');
    revokeGrant(
      call,
      record,
      record.service_account_grants,
      call.body.serviceAccountId,
      'service_account_grant_not_found',
      'revoke_service_account',
    );
    return { recordId: record.record_id, serviceAccountId: call.body.serviceAccountId };
  },

  grantServiceAccount: (call) => {
    const sa = owned(call.db.serviceAccounts, 'service_account_id', call.params.id!, call.accountId, 'service_account_not_found');
    if (sa.status !== 'active') throw conflict('service_account_inactive');
    const record = writableRecord(call, call.body.recordId);
    checkWrapper(call.body.wrappedDek, record, sa.service_account_id);
    record.service_account_grants[sa.service_account_id] = call.body.wrappedDek;
    audit(call, record, 'grant_service_account');
    return { recordId: record.record_id, serviceAccountId: sa.service_account_id };
  },
} satisfies Partial<Handlers>;
