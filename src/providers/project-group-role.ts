/**
 * A project's group roles (`projects.P.groupRoles: { GROUP: ROLE }`, addressed `project_group_role.P/GROUP`):
 * each gives a group of the configuration's `directory:` a role of the directory on the project, with
 * `POST /projects/{id}/group-grants/{groupId}`. No operation reads an assignment back, and none removes one:
 * the kind is known only from state (the plan lists it as not verifiable from the API), a changed role is a
 * new POST, and an assignment that leaves the configuration is forgotten, the plan naming the dashboard as
 * the place to remove it. The answer says when members' keys still wait for a client to seal them
 * (`rekey_queued`, `material_pending`): apply says so in words a person can act on.
 */
import { undeclaredInDirectory, VALUE } from '../config/index.js';
import { resourceAddress, type ResultNotice } from '../plan-model/index.js';
import { defineKind } from './define-kind.js';
import type { Known, Problem, RecordedObject, View } from './types.js';
import { ref } from './view-diff.js';
import { writeSpec } from './write-spec.js';

export interface ProjectGroupRoleAttributes {
  /** Local name of the project. */
  project: string;
  /** Names in the configuration's `directory:` (groups, roles). */
  group: string;
  role: string;
}

const projectAddress = (attributes: ProjectGroupRoleAttributes) => resourceAddress('project', attributes.project);

const view = (attributes: ProjectGroupRoleAttributes): View => ({ role: attributes.role });

/** What the answer of the POST may ask of people, worded for this group (the applier only counts). */
function noticesFor(group: string): ResultNotice[] {
  return [
    {
      list: 'changes',
      flag: 'material_pending.project_key',
      text: `group ${group}: the project key is not yet sealed for {count} of its members (material pending): they can read the project's records once a client that holds the project key seals it for them (cplane holds no such key)`,
    },
    {
      list: 'changes',
      flag: 'material_pending.record_key',
      text: `group ${group}: record keys are not yet sealed for {count} of its members (material pending): a client that holds them must seal them before those members can read the records`,
    },
    {
      list: 'changes',
      flag: 'rekey_queued',
      text: `group ${group}: keys for {count} of its members are queued for re-sealing (rekey queued): they can read once a client that holds the keys re-seals them`,
    },
  ];
}

/** The directory's ids for the group and the role, or why the assignment cannot be planned. */
function idsOf(attributes: ProjectGroupRoleAttributes, known: Known): { groupId: string; roleId: string } | { problem: Problem } {
  const group = known.directory.groups[attributes.group];
  if (!group) return { problem: undeclaredInDirectory('groups', attributes.group, known.directory) };
  const role = known.directory.roles[attributes.role];
  if (!role) return { problem: undeclaredInDirectory('roles', attributes.role, known.directory) };
  return { groupId: group.id, roleId: role.id };
}

function assign(attributes: ProjectGroupRoleAttributes, known: Known, what: string) {
  const ids = idsOf(attributes, known);
  if ('problem' in ids) return { writes: [], problems: [ids.problem] };
  const project = ref(known, projectAddress(attributes));
  const effects = { id: { result: 'groupId' }, parents: { projectId: project }, notices: noticesFor(attributes.group) };
  return {
    writes: [
      writeSpec('grantProjectGroupRole', { path: { id: project, groupId: ids.groupId }, body: { roleId: ids.roleId }, effects }, what),
    ],
  };
}

export const projectGroupRoleKind = defineKind<ProjectGroupRoleAttributes, RecordedObject, string>({
  kind: 'project_group_role',
  parent: { kind: 'project', attribute: 'project', idField: 'projectId', removedWith: 'forgotten with' },
  config: {
    key: 'groupRoles',
    noun: 'group role of',
    schema: {
      description:
        'The role (its name in directory.roles) the group gets on the project; addressed as project_group_role.<project>/<group>. No operation reads or removes it: leaving the configuration forgets it (remove it in the dashboard).',
      type: 'string',
      minLength: 1,
    },
    mapDescription:
      'Roles of groups on the project: group name (in directory.groups) -> role name (POST /projects/{id}/group-grants/{groupId}).',
    // The entry is the role's name itself (`platform: admin`); the group's name is its key.
    attributes: (role, group, project) => ({ project: project!, group, role }),
    touches: [{ principal: 'group', attribute: 'group', as: 'grants' }],
    complete({ attributes, directory, report }) {
      if (!Object.hasOwn(directory.groups, attributes.group))
        report('', { ...undeclaredInDirectory('groups', attributes.group, directory), underline: attributes.group });
      if (!Object.hasOwn(directory.roles, attributes.role))
        report(VALUE, { ...undeclaredInDirectory('roles', attributes.role, directory), underline: attributes.role });
    },
  },
  relations: { access: { via: 'project-group-role', role: 'role' } },
  observation: 'state',
  writeOperations: ['grantProjectGroupRole'],
  removeAction: 'forget',

  identify: ({ live }) => ({
    id: live.id,
    ...(live.parents ? { parents: live.parents } : {}),
    key: `${live.parents?.projectId}/${live.id}`,
    status: 'live',
  }),
  // Never adopted: no operation lists assignments made outside cplane.
  naturalKey: () => undefined,
  desiredView: ({ attributes }) => view(attributes),

  planCreate: ({ desired, known }) =>
    assign(desired.attributes, known, `give group ${desired.attributes.group} the role ${desired.attributes.role}`),

  planUpdate({ desired, live, known }) {
    const before = (live.inputs as unknown as ProjectGroupRoleAttributes).role;
    const planned = assign(desired.attributes, known, `give group ${desired.attributes.group} the role ${desired.attributes.role}`);
    return {
      ...planned,
      notes: [
        `a new POST gives the group the role ${desired.attributes.role} in place of ${before} (the API keeps one role per group on a project)`,
      ],
    };
  },

  planDelete({ live }) {
    const { group, role } = (live as RecordedObject).inputs as unknown as ProjectGroupRoleAttributes;
    return {
      writes: [],
      notes: [
        `the API has no operation that removes a group's role: cplane forgets it, and group ${group} keeps the role ${role} on the project until someone removes it in the dashboard`,
      ],
    };
  },
});
