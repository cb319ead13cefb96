/**
 * Service Account metadata and group intent: deleting a group and assigning a
 * role to a group on a project. Both return the group mutation result, listing
 * per-member changes and the client re-sealing still pending.
 */
import type { GroupMutationResultT } from '../../api/shapes.js';
import { omit, owned, type Handlers } from '../handler-call.js';
import { notFound } from '../errors.js';
import type { Db, GroupRow } from '../store.js';

type Change = GroupMutationResultT['changes'][number];

function change(kind: 'project' | 'record', resourceId: string, userId: string, partial: Partial<Change>): Change {
  return {
    kind,
    resource_id: resourceId,
    user_id: userId,
    wrappers_deleted: 0,
    project_wrappers_deleted: 0,
    rekey_queued: false,
    material_pending: { project_key: false, record_key: false },
    sources_removed: [],
    sources_added: [],
    secret_sources_remaining: [],
    project_sources_remaining: [],
    ...partial,
  };
}

/** Access paths other than this group that keep a user's access to a project. */
function otherProjectSources(db: Db, group: GroupRow, projectId: string, userId: string): Record<string, unknown>[] {
  return db.groupProjectRoles
    .filter(
      (g) =>
        g.project_id === projectId &&
        g.group_id !== group.group_id &&
        db.groups.find((x) => x.group_id === g.group_id)?.member_ids.includes(userId),
    )
    .map((g) => ({ source: 'group', group_id: g.group_id, role_id: g.role_id }));
}

export const accessHandlers = {
  listServiceAccounts: ({ db, accountId }) => db.serviceAccounts.filter((s) => s.account_id === accountId).map((s) => omit(s, 'role_id')),

  deleteGroup: ({ db, accountId, params }) => {
    const group = owned(db.groups, 'group_id', params.groupId!, accountId, 'group_not_found');
    const changes: Change[] = [];
    let wrappersDeleted = 0;
    let projectWrappersDeleted = 0;
    for (const grant of db.groupProjectRoles.filter((g) => g.group_id === group.group_id)) {
      for (const userId of group.member_ids) {
        const remaining = otherProjectSources(db, group, grant.project_id, userId);
        projectWrappersDeleted += remaining.length ? 0 : 1;
        changes.push(
          change('project', grant.project_id, userId, {
            project_wrappers_deleted: remaining.length ? 0 : 1,
            sources_removed: [['group', group.group_id, grant.role_id]],
            project_sources_remaining: remaining,
          }),
        );
      }
    }
    for (const record of db.records.filter((r) => group.group_id in r.group_grants)) {
      for (const userId of group.member_ids) {
        const direct = userId in record.user_grants || record.owner_user_id === userId;
        wrappersDeleted += direct ? 0 : 1;
        changes.push(
          change('record', record.record_id, userId, {
            wrappers_deleted: direct ? 0 : 1,
            rekey_queued: !direct,
            material_pending: { project_key: false, record_key: !direct },
            sources_removed: [['group', group.group_id]],
            secret_sources_remaining: direct ? [{ source: record.owner_user_id === userId ? 'owner' : 'direct' }] : [],
          }),
        );
      }
      delete record.group_grants[group.group_id];
    }
    db.groupProjectRoles = db.groupProjectRoles.filter((g) => g.group_id !== group.group_id);
    db.groups.splice(db.groups.indexOf(group), 1);
    return { groupId: group.group_id, changed: true, wrappersDeleted, projectWrappersDeleted, changes };
  },

  grantProjectGroupRole: ({ db, accountId, params, body }) => {
    const project = owned(db.projects, 'project_id', params.id!, accountId, 'project_not_found');
    const group = owned(db.groups, 'group_id', params.groupId!, accountId, 'group_not_found');
    if (!db.roles.some((r) => r.role_id === body.roleId)) throw notFound('role_not_found');
    const base = {
      groupId: group.group_id,
      projectId: project.project_id,
      roleId: body.roleId,
      wrappersDeleted: 0,
      projectWrappersDeleted: 0,
    };
    const existing = db.groupProjectRoles.find((g) => g.group_id === group.group_id && g.project_id === project.project_id);
    if (existing?.role_id === body.roleId) return { ...base, changed: false, changes: [] };
    const changes = group.member_ids.map((userId) =>
      change('project', project.project_id, userId, {
        // The new members' project key must be sealed by a client that holds it.
        rekey_queued: !existing,
        material_pending: { project_key: !existing, record_key: false },
        sources_removed: existing ? [['group', group.group_id, existing.role_id]] : [],
        sources_added: [['group', group.group_id, body.roleId]],
        project_sources_remaining: otherProjectSources(db, group, project.project_id, userId),
      }),
    );
    if (existing) existing.role_id = body.roleId;
    else db.groupProjectRoles.push({ group_id: group.group_id, project_id: project.project_id, role_id: body.roleId });
    return { ...base, changed: true, changes };
  },
} satisfies Partial<Handlers>;
