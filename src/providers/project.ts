/**
 * Projects: created with POST /projects, updated with a PATCH that replaces
 * every editable value (so it always sends name, description and isActive),
 * archived when they leave the configuration (the API has no delete) and
 * unarchived when they come back.
 */
import type { ProjectT } from '../api/shapes.js';
import type { RecordConfig } from './record.js';
import { defineKind, LOCAL_NAME } from './define-kind.js';
import type { AttributesOf, EntryOf, Fields } from './field-types.js';
import { isIgnored, nullWhenNotFound } from './view-diff.js';
import { writeSpec } from './write-spec.js';

const fields = {
  name: {
    schema: { description: 'Name of the project. Defaults to the local name.', type: 'string', minLength: 1, maxLength: 200 },
    default: LOCAL_NAME,
  },
  description: { schema: { description: 'Description of the project. Default empty.', type: 'string', maxLength: 2000 }, default: '' },
  active: {
    schema: { description: 'Whether the project is active (isActive). Default true.', type: 'boolean' },
    default: true,
    live: 'is_active',
  },
} as const satisfies Fields;

/** An entry of this kind in a configuration file, with the kinds declared inside it. */
export type ProjectConfig = EntryOf<typeof fields> & {
  records?: Record<string, RecordConfig>;
  /** Group name -> role name, both declared in `directory:` (project-group-role.ts). */
  groupRoles?: Record<string, string>;
};
export type ProjectAttributes = AttributesOf<typeof fields>;

export const projectKind = defineKind<ProjectAttributes, ProjectT, ProjectConfig>({
  kind: 'project',
  description: 'A project, which groups records.',
  fields,
  lifecycle: 'project',
  config: { key: 'projects', noun: 'project', mapDescription: 'Projects by local name; each is addressed as project.<name>.' },
  refreshOperations: ['listProjects'],
  writeOperations: ['createProject', 'updateProject', 'archiveProject'],
  readOperation: 'getProject',
  export: {
    selectedByName: true,
    name: (live) => live.name,
    skip: [{ when: (live) => live.archived, count: { key: 'archivedProjects', one: 'archived project' } }],
    entry({ live, local }) {
      const entry: ProjectConfig = {};
      if (live.name !== local) entry.name = live.name;
      if (live.description !== '') entry.description = live.description;
      if (!live.is_active) entry.active = false;
      return entry;
    },
    file: {
      perEntry: (local) => [
        `Project ${local}: its records (metadata only) and its gateways, with their settings,`,
        'OTel export and tokens.',
      ],
    },
  },
  removeAction: 'archive',

  async refresh({ client, account, expected }) {
    const items = await client.listAll('listProjects', { query: { accountId: account, includeArchived: true } }, { expected: expected() });
    return { items, failures: [] };
  },

  async read({ client, id }) {
    return nullWhenNotFound(() => client.call('getProject', { path: { id } }));
  },

  identify: ({ live }) => ({ id: live.project_id, key: live.name, status: live.archived ? 'archived' : 'live' }),
  naturalKey: ({ desired }) => desired.attributes.name,
  // An archived project is brought back first.
  diff: ({ live }, derived) =>
    live.archived ? { changes: [{ path: 'archived', before: true, after: false }, ...derived().changes] } : derived(),

  planCreate({ desired, known }) {
    const { name, description, active } = desired.attributes;
    const writes = [
      writeSpec(
        'createProject',
        { body: { accountId: known.account, name, description }, effects: { id: { result: 'project_id' } } },
        `create project ${name}`,
      ),
    ];
    if (!active) {
      writes.push(
        writeSpec(
          'updateProject',
          { path: { id: { $ref: desired.address } }, body: { name, description, isActive: false } },
          `deactivate project ${name}`,
        ),
      );
    }
    return { writes };
  },

  planUpdate({ desired, live, id, changedKeys }) {
    const writes = [];
    if (changedKeys.includes('archived')) {
      writes.push(writeSpec('archiveProject', { path: { id }, body: { archived: false } }, `unarchive project ${live.name}`));
    }
    if (changedKeys.some((key) => key !== 'archived')) {
      // The PATCH replaces all editable values: an ignored field keeps its live value instead of being dropped.
      const ignore = desired.lifecycle.ignoreChanges;
      const keep = <T>(path: string, wanted: T, current: T): T => (isIgnored(path, ignore) ? current : wanted);
      const body = {
        name: keep('name', desired.attributes.name, live.name),
        description: keep('description', desired.attributes.description, live.description),
        isActive: keep('active', desired.attributes.active, live.is_active),
      };
      writes.push(writeSpec('updateProject', { path: { id }, body }, `update project ${body.name}`));
    }
    return { writes };
  },

  planDelete({ address, id }) {
    return {
      writes: [writeSpec('archiveProject', { path: { id }, body: { archived: true }, effects: { forget: true } }, `archive ${address}`)],
    };
  },
});
