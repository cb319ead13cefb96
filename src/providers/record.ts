/**
 * Records (metadata and value): adopted by project and name, created with
 * POST /records (create or upsert), metadata changed with PATCH /records/{id}
 * (which never touches the value), a new value version written when the
 * value's fingerprint changed (encrypted on the client at apply), archived
 * when they leave the configuration and unarchived when they come back.
 * A `generate`d value with `rotationIntervalDays` is rotated once its live
 * `secret_due_at` has passed, or without one, an interval after its last value
 * write (POST /records/{id}/rotate with a new value), and its due date moved an
 * interval ahead; a new one gets its first due date when it is created. Each new value version is wrapped again, in the same step, for
 * every reader that keeps its grant (record-grant.ts); grants made outside cplane in a kind `grants` names
 * are revoked, and `rotateOnRevoke` rotates a generated value when a reader is removed.
 */
import type { RecordMetaT } from '../api/shapes.js';
import type { DesiredResource } from '../config/types.js';
import { resourceAddress, VALUE_VERSION_INPUT, type FieldChange, type Template } from '../plan-model/index.js';
import type { RecordOwnerConfig } from './record-owner.js';
import { readerKinds, type Reader, type ReaderKind } from './record-grant.js';
import { defineKind, LOCAL_NAME } from './define-kind.js';
import type { AttributesOf, EntryOf, Fields, FromSchema } from './field-types.js';
import type { Known } from './types.js';
import { canonicalTime, hasKeys, isIgnored, nullWhenNotFound, ref, sortedSet } from './view-diff.js';
import { writeSpec } from './write-spec.js';
import { listRecordsOnce } from './record-list.js';

// `if`/`else` rather than `oneOf`: a mistake in an entry is reported once, by the form it was written in.
const readerEntrySchema = {
  if: { type: 'string' },
  then: { $ref: '#/$defs/localName' },
  else: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { $ref: '#/$defs/localName' },
      until: {
        description: "When the grant ends (ISO 8601 date-time with a time zone): every plan after it, on the API's clock, revokes it.",
        type: 'string',
        format: 'date-time',
      },
      reason: {
        description: 'Why the grant is given (a ticket, an incident): policies can require it.',
        type: 'string',
        minLength: 1,
        maxLength: 200,
      },
    },
  },
} as const;
/** A reader: its name, or its name with the time its grant ends (`until`, on the API's clock) and why it was given. */
export type ReaderEntry = FromSchema<typeof readerEntrySchema>;

type ReaderListSchema = { description: string; type: 'array'; uniqueItems: true; items: typeof readerEntrySchema };
const grantsSchema = {
  description:
    'Who may read the value (docs/access.md): each kind named here is authoritative (a grant it does not list is revoked); a kind not named is left alone.',
  type: 'object',
  additionalProperties: false,
  // One list per reader kind (record-grant.ts), typed as the kinds' sections.
  properties: Object.fromEntries(
    readerKinds.map((k) => [k.section, { description: k.listDescription, type: 'array', uniqueItems: true, items: readerEntrySchema }]),
  ) as Record<ReaderKind['section'], ReaderListSchema>,
} as const;
/** A record's `grants:`: Service Accounts by name, users and groups by their name in `directory:`. */
export type RecordGrantsConfig = FromSchema<typeof grantsSchema>;

/** The name a reader entry gives. */
const readerName = (entry: ReaderEntry) => (typeof entry === 'string' ? entry : entry.name);

const metadataKeys = ['name', 'tags', 'secretDueAt', 'rotationIntervalDays'] as const;
/** The record's value encrypted at apply time, bound to the record and the version the write makes. */
const encrypted = (record: string | { $ref: string }, version: number): Template => ({ $encrypt: { field: 'value', record, version } });
/** Where a value write's answer names the version it made, so the apply wraps that version's data key without reading it. */
const valueVersion = { record: 'record_id', version: 'version' };

interface Readers {
  kept: { kind: ReaderKind; name: string; reader: Reader }[];
  revoked: string[];
  ended: string[];
  unlisted: { kind: ReaderKind; name: string; readerId: string }[];
}

/**
 * The record's readers, per reader kind its `grants` names: those that keep their grant (their data key is
 * wrapped again with each new value version), those the configuration no longer lists (a reader removed:
 * `revoked`), and among them the grants no address manages (made outside cplane: `unlisted`, revoked by this
 * step; a managed one is revoked by its own address's removal).
 */
function readersOf(attributes: RecordAttributes, live: RecordMetaT, known: Known): Readers {
  // A record whose `grants` names no kind leaves its readers alone (the most common record: nothing to make).
  if (attributes.grants === undefined) return noReaders;
  const kept: Readers['kept'] = [];
  const revoked: string[] = [];
  /** Readers whose grant has ended (`until`): revoked like the others, and said so. */
  const ended = new Set<string>();
  const unlisted: Readers['unlisted'] = [];
  for (const kind of readerKinds) {
    const names = attributes.grants?.[kind.section];
    if (names === undefined) continue;
    const liveIds = new Set(live.grants?.[kind.liveIds] ?? []);
    const listedIds = new Set<string>();
    for (const name of names) {
      // A grant past its `until` is no longer listed: revoked (its own address's step revokes it).
      if (hasEnded(attributes, `${kind.section}/${name}`, known.nowForEnds)) {
        const { reader } = kind.resolve(known, name);
        if (reader) ended.add(reader.id);
        continue;
      }
      const { reader } = kind.resolve(known, name);
      if (!reader) continue;
      listedIds.add(reader.id);
      if (liveIds.has(reader.id)) kept.push({ kind, name, reader });
    }
    for (const readerId of liveIds) {
      if (listedIds.has(readerId)) continue;
      revoked.push(readerId);
      const grantId = `${live.record_id}/${readerId}`;
      if (known.nameOf(kind.kind, grantId) === grantId) unlisted.push({ kind, name: kind.nameOf(known, readerId), readerId });
    }
  }
  return { kept, revoked, ended: revoked.filter((id) => ended.has(id)), unlisted };
}

const noReaders: Readers = Object.freeze({ kept: [], revoked: [], ended: [], unlisted: [] });

/** Whether the grant `section/name` of the record ends at or before `now` (its `until`). */
function hasEnded(attributes: RecordAttributes, key: string, now: Date): boolean {
  const until = attributes.grantsUntil?.[key];
  return until !== undefined && Date.parse(until) <= now.getTime();
}

/** A grant made outside cplane that the record's `grants` does not list, as the plan shows its revocation. */
const unlistedChange = ({ kind, name }: { kind: ReaderKind; name: string }): FieldChange => ({
  path: `grants.${kind.section}`,
  before: name,
  after: null,
  note: 'granted outside cplane; not listed, so revoked',
  cause: 'granted-outside',
});

const projectAddress = (attributes: RecordAttributes) => resourceAddress('project', attributes.project);

const DAY_MS = 86_400_000;

/** A value cplane makes itself (`generate`): making a new one is a rotation. */
const isGenerated = (desired: DesiredResource<RecordAttributes>) =>
  desired.secrets.value !== undefined && 'generate' in desired.secrets.value;

/** The start of the API's day plus `days`: a due date that a saved plan applied the same day plans again unchanged. */
const daysFromToday = (now: Date, days: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + days * DAY_MS).toISOString();

/**
 * When a generated value with an interval is due for rotation: its live due date, or without one, the interval
 * counted from its last value write (the record's last change on the API's clock bounds it: a later metadata
 * change only delays the first rotation), once passed; with the next due date.
 */
function rotationDue(
  desired: DesiredResource<RecordAttributes>,
  live: RecordMetaT,
  now: Date,
): { dueAt: string; nextDueAt: string } | undefined {
  const interval = desired.attributes.rotationIntervalDays;
  if (!isGenerated(desired) || !interval || live.current_version === null) return undefined;
  const dueAt = live.secret_due_at ?? new Date(Date.parse(live.updated_at) + interval * DAY_MS).toISOString();
  if (Date.parse(dueAt) > now.getTime()) return undefined;
  return { dueAt, nextDueAt: daysFromToday(now, interval) };
}

/** A new generated value with an interval and no configured due date gets one, so every reader of the record sees when it rotates. */
function firstDueAt(desired: DesiredResource<RecordAttributes>, now: Date): string | undefined {
  const interval = desired.attributes.rotationIntervalDays;
  return isGenerated(desired) && interval && desired.attributes.secretDueAt === undefined ? daysFromToday(now, interval) : undefined;
}

const utcDay = (at: string) => `${at.slice(0, 10)} UTC`;

/** `due 3 days ago`, `due today`. */
function dueText(dueAt: string, now: Date): string {
  const days = Math.floor((now.getTime() - Date.parse(dueAt)) / DAY_MS);
  return days === 0 ? 'due today' : `due ${days} day${days === 1 ? '' : 's'} ago`;
}

// Unset optional fields are not managed: they stay out of the view, so their live value is left alone.
const fields = {
  name: {
    schema: {
      description: 'Name of the record, unique in its project. Defaults to the local name.',
      type: 'string',
      minLength: 1,
      maxLength: 200,
    },
    default: LOCAL_NAME,
  },
  // Set at creation and no call changes it: shown in a create (and in state), never diffed.
  format: {
    schema: { description: "Format of the record's value, set at creation.", type: 'string', minLength: 1, maxLength: 50 },
    observed: false,
  },
  tags: {
    schema: { description: 'Metadata tags.', type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 100 } },
    normalize: (tags) => sortedSet(tags as string[]),
  },
  secretDueAt: {
    schema: {
      description: 'When the value is due for rotation (ISO 8601 date-time), or null.',
      type: ['string', 'null'],
      format: 'date-time',
    },
    live: 'secret_due_at',
    normalize: (at) => canonicalTime(at as string),
  },
  rotationIntervalDays: {
    schema: { description: 'Rotation interval in days, 1 to 3650, or null.', type: ['integer', 'null'], minimum: 1, maximum: 3650 },
    live: 'rotation_interval_days',
  },
  value: {
    schema: { description: "Source of the record's value, encrypted locally before it is sent.", $ref: '#/$defs/secretSource' },
    writeOnly: true,
  },
  grants: {
    schema: grantsSchema,
    inView: false,
    // The readers' names, by kind. (A callback's entry is typed in its body: its signature cannot name the type its fields make.)
    attribute(entry): Partial<Record<ReaderKind['section'], string[]>> | undefined {
      const { grants } = entry as RecordConfig;
      return grants && Object.fromEntries(Object.entries(grants).map(([section, list]) => [section, list.map(readerName)]));
    },
    // Only a record whose readers end carries their ends, so every other record's attributes stay as they were.
    carries(entry): { grantsUntil: Record<string, string> | undefined } {
      const { grants = {} } = entry as RecordConfig;
      const ends = Object.entries(grants).flatMap(([section, list]) =>
        list.flatMap((e) => (typeof e === 'object' && e.until !== undefined ? [[`${section}/${e.name}`, e.until] as const] : [])),
      );
      return { grantsUntil: ends.length > 0 ? Object.fromEntries(ends) : undefined };
    },
  },
  rotateOnRevoke: {
    schema: {
      description: 'For a generated value: rotate it in the apply that removes one of its readers (otherwise the plan warns).',
      type: 'boolean',
    },
    inView: false,
  },
} as const satisfies Fields;

/** An entry of this kind in a configuration file, with the kind declared inside it. */
export type RecordConfig = EntryOf<typeof fields> & { owner?: RecordOwnerConfig };
export type RecordAttributes = AttributesOf<typeof fields, 'project'>;

export const recordKind = defineKind<RecordAttributes, RecordMetaT, RecordConfig>({
  kind: 'record',
  parent: { kind: 'project', attribute: 'project', idField: 'projectId' },
  description: 'A record of a project. Unset optional fields are not managed.',
  fields,
  // The plan shows a record's metadata before its format.
  viewOrder: ['name', 'tags', 'secretDueAt', 'rotationIntervalDays', 'format'],
  lifecycle: 'record',
  config: {
    key: 'records',
    noun: 'record',
    mapDescription: 'Records of the project by local name; each is addressed as record.<project>/<name>.',
  },
  relations: { wrappedValue: 'value' },
  refreshOperations: ['listRecords'],
  writeOperations: [
    'createRecord',
    'createRecordVersion',
    'updateRecord',
    'rotateRecord',
    'archiveRecord',
    ...readerKinds.flatMap((k) => k.writeOperations),
  ],
  readOperation: 'getRecord',
  export: {
    name: (live) => live.name,
    skip: [{ when: (live) => live.archived, count: { key: 'archivedRecords', one: 'archived record' } }],
    entry({ live, local }) {
      const entry: RecordConfig = { format: live.format, tags: [...live.tags] };
      if (live.name !== local) entry.name = live.name;
      if (live.secret_due_at !== null) entry.secretDueAt = live.secret_due_at;
      if (live.rotation_interval_days !== null) entry.rotationIntervalDays = live.rotation_interval_days;
      return entry;
    },
    holderComment: 'Record metadata only: values are never exported. To manage a value, add value: { env: NAME } (or file, or generate).',
    withoutValue: true,
  },
  removeAction: 'archive',
  // `current_version` is null until a first value version is written.
  optionalValue: { field: 'value', present: (live: RecordMetaT) => live.current_version !== null },

  async refresh(req) {
    return { items: await listRecordsOnce(req), failures: [] };
  },

  read: ({ client, id }) => nullWhenNotFound(() => client.call('getRecord', { path: { id } })),

  identify: ({ live }) => ({
    id: live.record_id,
    parents: { projectId: live.project_id },
    key: `${live.project_id}/${live.name}`,
    status: live.archived ? 'archived' : 'live',
  }),

  naturalKey({ desired, known }) {
    const projectId = known.idOf(projectAddress(desired.attributes));
    return projectId === undefined ? undefined : `${projectId}/${desired.attributes.name}`;
  },

  diff({ desired, live, known, state }, derived) {
    const ignore = desired.lifecycle.ignoreChanges;
    const dueAt = canonicalTime(desired.attributes.secretDueAt);
    // A rotating value moves its due date: the configured `secretDueAt` is only the first one.
    const moved =
      isGenerated(desired) &&
      desired.attributes.rotationIntervalDays &&
      typeof dueAt === 'string' &&
      live.secret_due_at &&
      Date.parse(live.secret_due_at) > Date.parse(dueAt);
    const changes = moved ? derived().changes.filter((c) => c.path !== 'secretDueAt') : derived().changes;
    if (live.archived) changes.unshift({ path: 'archived', before: true, after: false });
    const due = isIgnored('value', ignore) ? undefined : rotationDue(desired, live, known.now);
    const readers = readersOf(desired.attributes, live, known);
    if (
      readers.revoked.length > 0 &&
      desired.attributes.rotateOnRevoke &&
      isGenerated(desired) &&
      !isIgnored('value', ignore) &&
      !changes.some((c) => c.path === 'value')
    ) {
      const n = readers.revoked.length;
      const ended =
        readers.ended.length === 0
          ? ''
          : readers.ended.length === n
            ? ` (${n === 1 ? 'its grant' : 'their grants'} ended)`
            : ` (${readers.ended.length} grant${readers.ended.length === 1 ? '' : 's'} ended)`;
      changes.push({ path: 'value', sensitive: true, note: `rotate: ${n} reader${n === 1 ? '' : 's'} removed${ended}` });
    }
    for (const unlisted of readers.unlisted) changes.push(unlistedChange(unlisted));
    const inputs: Record<string, unknown> = {};
    if (due) {
      const value = changes.find((c) => c.path === 'value');
      const note = `rotate: ${dueText(due.dueAt, known.now)}`;
      if (value) value.note = note;
      else changes.push({ path: 'value', sensitive: true, note, cause: 'rotation-due' });
      const dueChange = changes.find((c) => c.path === 'secretDueAt');
      if (dueChange) dueChange.after = due.nextDueAt;
      else
        changes.push({
          path: 'secretDueAt',
          before: live.secret_due_at === null ? null : canonicalTime(live.secret_due_at),
          after: due.nextDueAt,
          cause: 'rotation-due',
          ...(live.secret_due_at === null
            ? { note: `no due date: every ${desired.attributes.rotationIntervalDays} days from the last value write` }
            : {}),
        });
      inputs.secretDueAt = due.nextDueAt;
    }
    const value = changes.find((c) => c.path === 'value');
    // The value version cplane last wrote, which the key ring never lets the API take back (applier/key-ring.ts):
    // the one this step writes (bound to it, and checked against the answer), or the one state recorded.
    const valueVersion = value ? (live.current_version ?? 0) + 1 : state?.inputs[VALUE_VERSION_INPUT];
    if (typeof valueVersion === 'number') inputs[VALUE_VERSION_INPUT] = valueVersion;
    const source = desired.secrets.value;
    if (value && source && 'output' in source)
      value.note = [`delivered from ${source.output.address}`, value.note].filter(Boolean).join('; ');
    if (value && readers.kept.length > 0) {
      const words = `re-wrapped for ${readers.kept.length} reader${readers.kept.length === 1 ? '' : 's'}`;
      value.note = value.note ? `${value.note}; ${words}` : words;
    }
    // A rotation because a reader's grant ended is maintenance, not a change of the configuration.
    const causes = readers.ended.length > 0 && changes.some((c) => c.path === 'value') ? { causes: ['grant-expired' as const] } : {};
    // The value change says so too, so the step's class (planner/step-class.ts) is not taken for a configuration change.
    if (readers.ended.length > 0 && value && !value.cause) value.cause = 'grant-expired';
    return {
      changes,
      ...(isGenerated(desired) ? { rotateKeys: ['value'] } : {}),
      ...(hasKeys(inputs) ? { inputs } : {}),
      ...causes,
    };
  },

  planCreate({ desired, known }) {
    const { attributes } = desired;
    const project = ref(known, projectAddress(attributes));
    const body: Record<string, Template> = { projectId: project, name: attributes.name };
    if (attributes.format !== undefined) body.format = attributes.format;
    if (attributes.tags !== undefined) body.tags = attributes.tags;
    if (attributes.secretDueAt !== undefined) body.secretDueAt = attributes.secretDueAt;
    if (attributes.rotationIntervalDays !== undefined) body.rotationIntervalDays = attributes.rotationIntervalDays;
    const dueAt = firstDueAt(desired, known.now);
    if (dueAt) body.secretDueAt = dueAt;
    const writes = [
      writeSpec(
        'createRecord',
        { body, effects: { id: { result: 'record_id' }, parents: { projectId: project } } },
        `create record ${attributes.name}`,
      ),
    ];
    // The value is written once the record has its id, so that it is bound to the record (crypto/record-value.ts):
    // the id is the API's to assign, and the first version of a new record is 1.
    if (desired.secrets.value) {
      const self = { $ref: desired.address };
      writes.push(
        writeSpec(
          'createRecordVersion',
          { path: { id: self }, body: encrypted(self, 1), effects: { valueVersion } },
          `write the first value of record ${attributes.name}`,
        ),
      );
    }
    return {
      writes,
      ...(desired.secrets.value ? { inputs: { [VALUE_VERSION_INPUT]: 1 } } : {}),
      ...(dueAt
        ? { notes: [`${desired.address}: rotated every ${attributes.rotationIntervalDays} days; first due ${utcDay(dueAt)}`] }
        : {}),
    };
  },

  planUpdate({ desired, live, id, changedKeys, known }) {
    const { attributes } = desired;
    const due = changedKeys.includes('value') ? rotationDue(desired, live, known.now) : undefined;
    const writes = [];
    if (changedKeys.includes('archived')) {
      writes.push(writeSpec('archiveRecord', { path: { id }, body: { archived: false } }, `unarchive record ${live.name}`));
    }
    // PATCH changes only the members it is given, so send only what differs.
    const body: Record<string, Template> = {};
    for (const key of metadataKeys) {
      const value = attributes[key];
      if (changedKeys.includes(key) && value !== undefined && !(due && key === 'secretDueAt')) body[key] = value;
    }
    if (Object.keys(body).length > 0) writes.push(writeSpec('updateRecord', { path: { id }, body }, `update record ${attributes.name}`));
    const readers = readersOf(attributes, live, known);
    if (changedKeys.includes('value')) {
      // A value cplane generates is made again: a rotation. A value from a source is a new version of it.
      // Bound to the version it makes: the API numbers versions one after the other, and a write made since the
      // plan (another version) makes the apply fail rather than leave a value no one can read.
      const body = encrypted(id, (live.current_version ?? 0) + 1);
      writes.push(
        isGenerated(desired)
          ? writeSpec(
              'rotateRecord',
              { path: { id }, body, effects: { valueVersion } },
              `rotate record ${attributes.name} (a new generated value)`,
            )
          : writeSpec(
              'createRecordVersion',
              { path: { id }, body, effects: { valueVersion } },
              `new value version of record ${attributes.name}`,
            ),
      );
      // The new version has a new data key: every reader that keeps its grant gets it wrapped again, in this
      // step, so the apply reports success only once they can all read the new value.
      // Sent by the record's step, these record nothing of their own in state (the grant's address keeps its id).
      for (const { kind, name, reader } of readers.kept)
        writes.push({ ...kind.grant(id, reader, `wrap the new value of record ${attributes.name} for ${kind.noun} ${name}`), effects: {} });
    }
    for (const { kind, name, readerId } of readers.unlisted)
      writes.push(
        kind.revoke(
          id,
          readerId,
          `revoke the grant of record ${attributes.name} to ${kind.noun} ${name}, which the configuration does not list`,
          false,
        ),
      );
    // The due date moves only once the new value is written: a failed rotation stays due.
    if (due)
      writes.push(
        writeSpec('updateRecord', { path: { id }, body: { secretDueAt: due.nextDueAt } }, `move the due date of record ${attributes.name}`),
      );
    return { writes };
  },

  planDelete({ address, id }) {
    return {
      writes: [writeSpec('archiveRecord', { path: { id }, body: { archived: true }, effects: { forget: true } }, `archive ${address}`)],
    };
  },
});
