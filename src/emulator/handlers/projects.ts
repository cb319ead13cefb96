/**
 * Accounts and projects: listing, creation, full-replacement update and the
 * archive state (`{archived: boolean}`; asking for the current state is 409).
 */
import type { ProjectT } from '../../api/shapes.js';
import { newId, owned, page, userOf, type Handlers } from '../handler-call.js';
import { conflict } from '../errors.js';

export const projectHandlers = {
  listAccounts: ({ db, caller }) => {
    const userId = userOf(caller);
    const ids = new Set(db.memberships.filter((m) => m.user_id === userId).map((m) => m.account_id));
    return db.accounts.filter((a) => ids.has(a.account_id)).map((a) => ({ ...a }));
  },

  listProjects: ({ db, accountId, query }) =>
    page(
      db.projects.filter((p) => p.account_id === accountId && (query.includeArchived || !p.archived)),
      query,
    ).map((p) => ({ ...p })),

  getProject: ({ db, accountId, params }) => ({ ...owned(db.projects, 'project_id', params.id!, accountId, 'project_not_found') }),

  createProject: ({ db, accountId, body, now }) => {
    const at = now.toISOString();
    const project: ProjectT = {
      project_id: newId(),
      account_id: accountId,
      name: body.name,
      description: body.description,
      is_active: true,
      archived: false,
      archived_at: null,
      created_at: at,
      updated_at: at,
    };
    db.projects.push(project);
    return { project_id: project.project_id };
  },

  updateProject: ({ db, accountId, params, body, now }) => {
    const project = owned(db.projects, 'project_id', params.id!, accountId, 'project_not_found');
    if (project.archived) throw conflict('project_archived');
    // Full replacement (spec): every editable value comes from the body, and an omitted
    // one is reset to what a new project has rather than kept.
    Object.assign(project, {
      name: body.name,
      description: body.description ?? '',
      is_active: body.isActive ?? true,
      updated_at: now.toISOString(),
    });
    return { ...project };
  },

  archiveProject: ({ db, accountId, params, body, now }) => {
    const project = owned(db.projects, 'project_id', params.id!, accountId, 'project_not_found');
    if (project.archived === body.archived) throw conflict(body.archived ? 'project_already_archived' : 'project_not_archived');
    const at = now.toISOString();
    Object.assign(project, { archived: body.archived, archived_at: body.archived ? at : null, updated_at: at });
    return { ...project };
  },
} satisfies Partial<Handlers>;
