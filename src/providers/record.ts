/**
 * Records (metadata and value): adopted by project and name, created with
 * POST /records (create or upsert), metadata changed with PATCH /records/{id}
 * (which never touches the value), a new value version written when the
 * value's fingerprint changed (encrypted on the client at apply), archived
 * when they leave the configuration and unarchived when they come back.
 */
import type { RecordMetaT } from '../api/shapes.js';
import type { RecordAttributes, SecretSource } from '../config/types.js';
import type { RecordConfig } from '../config/config-file.js';
import { resourceAddress, type Template } from '../plan-model/index.js';
import type { ResourceProvider, View } from './types.js';
import { canonicalTime, diffViews, nullWhenNotFound, ref, sensitiveChanges, sortedSet } from './view-diff.js';
import { writeSpec } from './write-spec.js';

const metadataKeys = ['name', 'tags', 'secretDueAt', 'rotationIntervalDays'] as const;

function view(attributes: RecordAttributes): View {
  const out: View = { name: attributes.name };
  // Unset optional fields are not managed: they stay out of the view, so their live value is left alone.
  if (attributes.tags !== undefined) out.tags = sortedSet(attributes.tags);
  if (attributes.secretDueAt !== undefined) out.secretDueAt = canonicalTime(attributes.secretDueAt);
  if (attributes.rotationIntervalDays !== undefined) out.rotationIntervalDays = attributes.rotationIntervalDays;
  return out;
}

const projectAddress = (attributes: RecordAttributes) => resourceAddress('project', attributes.project);

function liveView(live: RecordMetaT): View {
  return {
    name: live.name,
    tags: sortedSet(live.tags),
    secretDueAt: canonicalTime(live.secret_due_at),
    rotationIntervalDays: live.rotation_interval_days,
  };
}

export const recordProvider = {
  kind: 'record',
  config: {
    kind: 'record',
    key: 'records',
    parent: { kind: 'project', attribute: 'project' },
    noun: 'record',
    attributes(entry, local, project) {
      const attributes: RecordAttributes = { project: project!, name: entry.name ?? local };
      if (entry.tags !== undefined) attributes.tags = [...entry.tags];
      if (entry.secretDueAt !== undefined) attributes.secretDueAt = entry.secretDueAt;
      if (entry.rotationIntervalDays !== undefined) attributes.rotationIntervalDays = entry.rotationIntervalDays;
      if (entry.format !== undefined) attributes.format = entry.format;
      return attributes;
    },
    secrets: (entry): Record<string, SecretSource> => (entry.value ? { value: entry.value } : {}),
  },
  relations: { parentIds: { projectId: 'project' }, parentAttributes: { projectId: 'project' } },
  refreshOperations: ['listRecords'],
  readOperation: 'getRecord',
  removeAction: 'archive',
  writeOnly: ['value'],

  async refresh({ client, account, expected }) {
    // One account-wide list instead of one list per project: requests grow with pages, not with projects.
    const items = await client.listAll('listRecords', { query: { accountId: account, includeArchived: true } }, { expected: expected() });
    return { items, failures: [] };
  },

  read: ({ client, id }) => nullWhenNotFound(() => client.call('getRecord', { path: { id } })),

  identify: ({ live }) => ({
    id: live.record_id,
    parents: { projectId: live.project_id },
    key: `${live.project_id}/${live.name}`,
    status: live.archived ? 'archived' : 'live',
  }),

  naturalKey({ desired, lookups }) {
    const projectId = lookups.idOf(projectAddress(desired.attributes));
    return projectId === undefined ? undefined : `${projectId}/${desired.attributes.name}`;
  },

  references: ({ attributes }) => [projectAddress(attributes)],

  view: ({ live }) => liveView(live),

  desiredView: ({ attributes }) => view(attributes),

  diff({ desired, live, changedSecrets }) {
    const ignore = desired.lifecycle.ignoreChanges;
    const changes = [...diffViews(view(desired.attributes), liveView(live), ignore), ...sensitiveChanges(changedSecrets, ignore)];
    if (live.archived) changes.unshift({ path: 'archived', before: true, after: false });
    return { changes, changedKeys: changes.map((c) => c.path), replaceKeys: [] };
  },

  planCreate({ desired, lookups }) {
    const { attributes } = desired;
    const project = ref(lookups, projectAddress(attributes));
    const body: Record<string, Template> = { projectId: project, name: attributes.name };
    if (attributes.format !== undefined) body.format = attributes.format;
    if (attributes.tags !== undefined) body.tags = attributes.tags;
    if (attributes.secretDueAt !== undefined) body.secretDueAt = attributes.secretDueAt;
    if (attributes.rotationIntervalDays !== undefined) body.rotationIntervalDays = attributes.rotationIntervalDays;
    if (desired.secrets.value) body.value = { $encrypt: 'value' };
    const effects = { id: { result: 'record_id' }, parents: { projectId: project } };
    return { writes: [writeSpec('createRecord', { body, effects }, `create record ${attributes.name}`)] };
  },

  planUpdate({ desired, live, id, changedKeys }) {
    const { attributes } = desired;
    const writes = [];
    if (changedKeys.includes('archived')) {
      writes.push(writeSpec('archiveRecord', { path: { id }, body: { archived: false } }, `unarchive record ${live.name}`));
    }
    // PATCH changes only the members it is given, so send only what differs.
    const body: Record<string, Template> = {};
    for (const key of metadataKeys) {
      const value = attributes[key];
      if (changedKeys.includes(key) && value !== undefined) body[key] = value;
    }
    if (Object.keys(body).length > 0) writes.push(writeSpec('updateRecord', { path: { id }, body }, `update record ${attributes.name}`));
    if (changedKeys.includes('value')) {
      writes.push(writeSpec('createRecordVersion', { path: { id }, body: { $encrypt: 'value' } }, `new value version of record ${attributes.name}`));
    }
    return { writes };
  },

  planDelete({ address, id }) {
    return {
      writes: [writeSpec('archiveRecord', { path: { id }, body: { archived: true }, effects: { forget: true } }, `archive ${address}`)],
    };
  },
} satisfies ResourceProvider<RecordAttributes, RecordMetaT, RecordConfig>;
