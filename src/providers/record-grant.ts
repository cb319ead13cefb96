/**
 * Record grants and shares: who may read a record, as three kinds declared in the record's
 * `grants: { serviceAccounts: [...], users: [...], groups: [...] }` and addressed under it
 * (`service_account_grant.payments/stripe-key/ci-deployer`, `user_share.payments/stripe-key/dana`,
 * `group_share.payments/stripe-key/platform`). A grant is created after the record's value exists, with the
 * value's data key wrapped for the reader at apply time (`$wrap`); it is observed through the records list's
 * `grants` ids, so a grant revoked outside cplane is drift and created again; removed, it is revoked. New value
 * versions are re-wrapped for the readers by the record's own step (record.ts), which also revokes the grants
 * of a named kind that the configuration does not list (it is authoritative per named kind).
 *
 * Service Accounts are named as `GET /service-accounts` lists them (service-accounts.ts checks the name);
 * users and groups by their name in the configuration's `directory:`, which gives their id and public key.
 */
import type { RecordMetaT, ServiceAccountT } from '../api/shapes.js';
import { keyIdOf } from '@cplane/sdk/internal/key-id';
import type { Entry, Touch } from '../config/blocks/kind-block.js';
import type { Directory, DirectorySection } from '../config/types.js';
import { resourceAddress, type AccessPath, type Template, type WrapTarget } from '../plan-model/index.js';
import { serviceAccounts } from './lookups.js';
import { listRecordsOnce } from './record-list.js';
import { resolveServiceAccount, serviceAccountLabel, type AccountLookups } from './service-accounts.js';
import { defineKind, type KindSpec } from './define-kind.js';
import type { DeleteRequest, ExportMapping, Known, Problem, UpdateRequest, WriteSpec, WritesResponse } from './types.js';
import { nullWhenNotFound } from './view-diff.js';
import { writeSpec } from './write-spec.js';

export interface GrantAttributes {
  /** The record's local name (`payments/stripe-key`). */
  record: string;
  /** The reader as the configuration names it: a Service Account's name, or a directory user's or group's name. */
  reader: string;
  /** When the grant ends (ISO 8601): once the API's clock passes it, every plan revokes the grant. */
  until?: string;
  /** Why the grant was given (a ticket), for people and policies. */
  reason?: string;
}

/** A grant as the records list shows it: which record, which reader (ids only). */
export interface LiveGrant {
  record_id: string;
  project_id: string;
  reader_id: string;
}

/** A reader the data key is wrapped for. */
export interface Reader {
  id: string;
  /** Base64 of its X25519 public key. */
  publicKey: string;
  /**
   * Whether the reviewed repository fixes the key (a directory user's or group's key, a pinned Service Account's);
   * otherwise the API offered it, and a change of it is only as safe as the API.
   */
  keyFromRepository: boolean;
}

/** The id of a reader's key, as wrappers, pins and state name it. */
const readerKeyId = (reader: Reader) => keyIdOf(Buffer.from(reader.publicKey, 'base64'));

/** What differs between the three kinds: where they are written, how a reader is found, and the operations. */
export interface ReaderKind {
  kind: string;
  /** The key of `grants` that lists them, and the key of the records list's `grants` holding their ids. */
  section: 'serviceAccounts' | 'users' | 'groups';
  /** The principal a grant gives access to the record, and the access report's name for the path. */
  principal: Touch['principal'];
  via: AccessPath;
  liveIds: 'service_account_ids' | 'user_ids' | 'group_ids';
  noun: string;
  /** How the export report counts them (`Service Account grant`). */
  exportNoun: string;
  /** What the configuration schema says of the list (`grants.serviceAccounts`). */
  listDescription: string;
  /** The reader named `name`, or why it cannot be used. */
  resolve(known: Known, name: string): { reader: Reader; problem?: undefined } | { reader?: undefined; problem: Problem };
  /** The name the configuration would give the reader `id` (for plans), or the id when it has none. */
  nameOf(known: Known, id: string): string;
  /** The write that grants `record` (an id or a `$ref`) to the reader, with its data key wrapped. */
  grant(record: string | { $ref: string }, reader: Reader, summary: string): WriteSpec;
  /** The write that revokes the reader's grant of the record. */
  revoke(recordId: string, readerId: string, summary: string, forget: boolean): WriteSpec;
  writeOperations: WriteSpec['operation'][];
}

/** The `$wrap` placeholder: the record's current data key wrapped for the reader at apply time. */
const wrapOf = (record: string | { $ref: string }, reader: Reader): Template => ({
  $wrap: { record, recipient: reader.id, publicKey: reader.publicKey },
});

function directoryReader(section: Extract<DirectorySection, 'users' | 'groups'>, noun: string) {
  return {
    resolve(known: Known, name: string) {
      const found = known.directory[section][name];
      // The loader has checked the name against the directory; a plan made without it (a test) still says why.
      return found
        ? { reader: { id: found.id, publicKey: found.publicKey, keyFromRepository: true } }
        : { problem: { code: 'unknown_directory_name', summary: `the ${noun} "${name}" is not declared in directory.${section}` } };
    },
    nameOf: (known: Known, id: string) => nameInDirectory(known.directory, section, id) ?? id,
  };
}

function nameInDirectory(directory: Directory, section: 'users' | 'groups', id: string): string | undefined {
  return Object.entries(directory[section]).find(([, p]) => p.id === id)?.[0];
}

export const serviceAccountReaders: ReaderKind = {
  kind: 'service_account_grant',
  section: 'serviceAccounts',
  principal: 'service_account',
  via: 'service-account-grant',
  liveIds: 'service_account_ids',
  noun: 'Service Account',
  exportNoun: 'Service Account grant',
  listDescription: 'Service Accounts by name, as GET /service-accounts lists them (or by id).',
  resolve(known, name) {
    const found = resolveServiceAccount(known, name);
    if (!found.serviceAccount) return { problem: found.problem! };
    const { problem, pinned } = checkServiceAccountKey(known, name, found.serviceAccount);
    return problem
      ? { problem }
      : { reader: { id: found.serviceAccount.service_account_id, publicKey: found.serviceAccount.public_key, keyFromRepository: pinned } };
  },
  nameOf: (known, id) => serviceAccountLabel(known, id),
  grant: (record, reader, summary) =>
    writeSpec(
      'grantServiceAccount',
      {
        path: { id: reader.id },
        body: { recordId: record, wrappedDek: wrapOf(record, reader) },
        effects: { id: { results: ['recordId', 'serviceAccountId'] }, parents: { recordId: record } },
      },
      summary,
    ),
  revoke: (recordId, readerId, summary, forget) =>
    writeSpec(
      'revokeRecordServiceAccount',
      { path: { id: recordId }, body: { serviceAccountId: readerId }, effects: forget ? { forget: true } : {} },
      summary,
    ),
  writeOperations: ['grantServiceAccount', 'revokeRecordServiceAccount'],
};

export const userReaders: ReaderKind = {
  kind: 'user_share',
  section: 'users',
  principal: 'user',
  via: 'user-share',
  liveIds: 'user_ids',
  noun: 'user',
  exportNoun: 'user share',
  listDescription: 'Users by their name in directory.users.',
  ...directoryReader('users', 'user'),
  grant: (record, reader, summary) =>
    writeSpec(
      'shareRecordWithUser',
      {
        path: { id: record },
        body: { userId: reader.id, wrappedDek: wrapOf(record, reader) },
        effects: { id: { results: ['recordId', 'userId'] }, parents: { recordId: record } },
      },
      summary,
    ),
  revoke: (recordId, readerId, summary, forget) =>
    writeSpec('revokeRecordUser', { path: { id: recordId }, body: { userId: readerId }, effects: forget ? { forget: true } : {} }, summary),
  writeOperations: ['shareRecordWithUser', 'revokeRecordUser'],
};

export const groupReaders: ReaderKind = {
  kind: 'group_share',
  section: 'groups',
  principal: 'group',
  via: 'group-share',
  liveIds: 'group_ids',
  noun: 'group',
  exportNoun: 'group share',
  listDescription: 'Groups by their name in directory.groups.',
  ...directoryReader('groups', 'group'),
  grant: (record, reader, summary) =>
    writeSpec(
      'shareRecordWithGroup',
      {
        path: { id: record },
        body: { groupId: reader.id, wrappedDek: wrapOf(record, reader) },
        effects: { id: { results: ['recordId', 'groupId'] }, parents: { recordId: record } },
      },
      summary,
    ),
  revoke: (recordId, readerId, summary, forget) =>
    writeSpec(
      'revokeRecordGroup',
      { path: { id: recordId }, body: { groupId: readerId }, effects: forget ? { forget: true } : {} },
      summary,
    ),
  writeOperations: ['shareRecordWithGroup', 'revokeRecordGroup'],
};

/**
 * The API is not trusted to say which key a Service Account has (it could offer its own and read every record
 * wrapped for it). The key must be the one its id names, and the one pinned in `directory.serviceAccounts`
 * when there is a pin, which the problem then points at.
 */
function checkServiceAccountKey(known: Known, name: string, account: ServiceAccountT): { problem?: Problem; pinned: boolean } {
  const keyId = keyIdOf(Buffer.from(account.public_key, 'base64'));
  if (account.key_id !== keyId) {
    return {
      pinned: false,
      problem: {
        code: 'service_account_key_id_mismatch',
        summary: `the Service Account "${name}" is listed with key id ${account.key_id}, but the public key listed with it is ${keyId}: cplane wraps nothing for a key the API describes two ways`,
        detail:
          'Pin the key you verified in the dashboard (directory.serviceAccounts.NAME.keyId), and report the answer of GET /service-accounts.',
      },
    };
  }
  const pin = known.directory.serviceAccounts[name] ?? known.directory.serviceAccounts[account.name];
  if (!pin) return { pinned: false };
  if (pin.keyId === keyId) return { pinned: true };
  return {
    pinned: true,
    problem: {
      code: 'service_account_key_mismatch',
      summary: `the Service Account "${name}" is offered with the key ${keyId}, and its pinned key is ${pin.keyId}`,
      detail:
        "Nothing is wrapped for it. If its key was rotated in the dashboard, check the new key id there and change the pin in a reviewed change; if not, the API is offering a key that is not the Service Account's: do not apply.",
      at: pin.source,
    },
  };
}

/** A reader key a `$wrap` is for that neither state nor the repository vouches for: who, the key, and the key state recorded. */
export interface UnvouchedKey {
  /** `Service Account ci-deployer`. */
  reader: string;
  offered: string;
  /** The key id state recorded for the grant (the key it was last wrapped for); absent for a grant state does not hold. */
  recorded?: string;
}

/**
 * Whether the key a `$wrap` is for is vouched for (docs/security.md, "What an unattended run may do"): by the
 * repository (a directory user's or group's key, a Service Account's pin) or by state (the key the grant of that
 * record to that reader was last wrapped for, `readerKeyId`). Otherwise the API chose it, and only a person may
 * let cplane wrap for it: the planner marks the step (planner/stages/offered-keys.ts). `recordedKeyId` gives what state
 * recorded for a grant, by its kind and id.
 */
export function unvouchedKey(
  known: Known,
  wrap: WrapTarget,
  recordedKeyId: (kind: string, id: string) => string | undefined,
): UnvouchedKey | undefined {
  const offered = keyIdOf(Buffer.from(wrap.publicKey, 'base64'));
  const { users, groups } = known.directory;
  if (
    [...Object.values(users), ...Object.values(groups)].some((entry) => entry.id === wrap.recipient && entry.publicKey === wrap.publicKey)
  )
    return undefined;
  const account = known.find(serviceAccounts, wrap.recipient);
  const name = serviceAccountLabel(known, wrap.recipient);
  const pin = known.directory.serviceAccounts[name] ?? (account ? known.directory.serviceAccounts[account.name] : undefined);
  if (pin?.keyId === offered) return undefined;
  const recordId = typeof wrap.record === 'string' ? wrap.record : known.idOf(wrap.record.$ref);
  const recorded =
    recordId === undefined
      ? undefined
      : readerKinds.map((kind) => recordedKeyId(kind.kind, grantId(recordId, wrap.recipient))).find((id) => id !== undefined);
  if (recorded === offered) return undefined;
  return { reader: `${serviceAccountReaders.noun} ${name}`, offered, ...(recorded !== undefined ? { recorded } : {}) };
}

/** The three reader kinds, in the order a record's `grants` lists them. */
export const readerKinds: readonly ReaderKind[] = [serviceAccountReaders, userReaders, groupReaders];

/** The live grants of one reader kind, from the records list. */
export function liveGrantsOf(records: readonly RecordMetaT[], readers: ReaderKind): LiveGrant[] {
  return records.flatMap((r) =>
    (r.grants?.[readers.liveIds] ?? []).map((reader_id) => ({ record_id: r.record_id, project_id: r.project_id, reader_id })),
  );
}

/** What a local name may be (the configuration schema's `localName`, without an instance key). */
const LOCAL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/**
 * How an exported grant names its Service Account: by name, unless the name cannot be written as one (the
 * account's text is untrusted: `a b`, `../x`), then by id, which the configuration also takes.
 */
function listedName(name: string | undefined, id: string): string {
  return name !== undefined && LOCAL_NAME.test(name) ? name : id;
}

/** A grant's id: the record's and the reader's, as the API names a grant by both. */
const grantId = (recordId: string, readerId: string) => `${recordId}/${readerId}`;

function splitGrantId(id: string): { recordId: string; readerId: string } {
  const [recordId = '', readerId = ''] = id.split('/');
  return { recordId, readerId };
}

const recordAddress = (attributes: GrantAttributes) => resourceAddress('record', attributes.record);

/** The definition of one reader kind. */
type GrantSpec = KindSpec<GrantAttributes, LiveGrant, Entry>;

/** A grant's configuration block: one name in its record's `grants.<section>` list. */
function grantConfig(readers: ReaderKind): GrantSpec['config'] {
  const { noun } = readers;
  return {
    key: `grants.${readers.section}`,
    list: true,
    // One name of the list; the record's schema holds the list (`grants` in record.ts).
    schema: { $ref: '#/$defs/localName' },
    noun: `grant to ${noun}`,
    // An entry written as `{ name, until, reason }` carries them; a plain name only the name.
    attributes: (entry: Entry, local: string, record?: string): GrantAttributes => ({
      record: record!,
      reader: local,
      ...(typeof entry.until === 'string' ? { until: entry.until } : {}),
      ...(typeof entry.reason === 'string' ? { reason: entry.reason } : {}),
    }),
    ...(readers.section === 'serviceAccounts' ? {} : { references: [{ attribute: 'name', directory: readers.section }] }),
    touches: [{ principal: readers.principal, attribute: 'reader', as: 'grants' }],
  };
}

// A grant is a name in its record's list: a Service Account's name (so the folder applies to another account,
// where a missing one is a plan problem), or a directory entry export declares from the id.
function grantExport(readers: ReaderKind): ExportMapping<LiveGrant, Entry> {
  return {
    noun: readers.exportNoun,
    entry: () => ({}),
    ...(readers.section === 'serviceAccounts'
      ? {
          lookups: [serviceAccounts],
          listItem: (live: LiveGrant, known: AccountLookups) => listedName(serviceAccountLabel(known, live.reader_id), live.reader_id),
          pin(live: LiveGrant, known: AccountLookups) {
            const account = known.find(serviceAccounts, live.reader_id);
            if (!account || account.key_id !== keyIdOf(Buffer.from(account.public_key, 'base64'))) return undefined;
            return { name: listedName(serviceAccountLabel(known, live.reader_id), live.reader_id), keyId: account.key_id };
          },
        }
      : { directory: { section: readers.section, noun: readers.noun, id: (live: LiveGrant) => live.reader_id } }),
  };
}

/** A grant's reader has a new key: the grant again, wrapped for it (with a warning when the API offered the key). */
function planGrantUpdate(
  readers: ReaderKind,
  { desired, id, changedKeys, known }: UpdateRequest<GrantAttributes, LiveGrant>,
): WritesResponse {
  const { noun } = readers;
  const { reader } = readers.resolve(known, desired.attributes.reader);
  if (!reader || !changedKeys.includes('readerKey')) return { writes: [] };
  const { recordId } = splitGrantId(id);
  const write = readers.grant(
    recordId,
    reader,
    `wrap record ${desired.attributes.record} again for ${noun} ${desired.attributes.reader}'s new key ${readerKeyId(reader)}`,
  );
  const warning = `${recordAddress(desired.attributes)}: the key of ${noun} ${desired.attributes.reader} changed to ${readerKeyId(reader)}, as the API offers it; it is not pinned, so the API could have chosen it. Check the key id in the dashboard, and pin it in directory.serviceAccounts.${desired.attributes.reader}.keyId.`;
  return { writes: [write], ...(reader.keyFromRepository ? {} : { notes: [warning] }) };
}

/** A revoke, with the reminder that the reader may still hold what it could read. */
function planGrantDelete(readers: ReaderKind, { address, id }: DeleteRequest): WritesResponse {
  const { recordId, readerId } = splitGrantId(id);
  return {
    writes: [readers.revoke(recordId, readerId, `revoke ${address}`, true)],
    // True whether or not the same plan rotates the value (the record's line then says `rotate: … removed`).
    notes: [
      `${address}: the reader may still hold the value it could read until now; rotate the record's value unless this plan does (rotateOnRevoke: true rotates a generated value in the same apply).`,
    ],
  };
}

export function grantKind(readers: ReaderKind) {
  const { kind, noun } = readers;
  return defineKind<GrantAttributes, LiveGrant, Entry>({
    kind,
    parent: { kind: 'record', attribute: 'record', idField: 'recordId' },
    config: grantConfig(readers),
    ...(readers.section === 'serviceAccounts' ? { lookups: [serviceAccounts] } : {}),
    relations: {
      missingAs: 'revoked',
      access: { via: readers.via, holders: (record) => (record as RecordMetaT).grants?.[readers.liveIds] ?? [] },
    },
    export: grantExport(readers),
    refreshOperations: ['listRecords'],
    readOperation: 'getRecord',
    writeOperations: readers.writeOperations,
    removeAction: 'revoke',

    async refresh(req) {
      return { items: liveGrantsOf(await listRecordsOnce(req), readers), failures: [] };
    },

    async read({ client, id }) {
      const { recordId, readerId } = splitGrantId(id);
      const record = await nullWhenNotFound(() => client.call('getRecord', { path: { id: recordId } }));
      return record && liveGrantsOf([record], readers).find((g) => g.reader_id === readerId)
        ? { record_id: recordId, project_id: record.project_id, reader_id: readerId }
        : null;
    },

    identify: ({ live }) => ({
      id: grantId(live.record_id, live.reader_id),
      parents: { recordId: live.record_id },
      key: grantId(live.record_id, live.reader_id),
      status: 'live',
    }),

    naturalKey({ desired, known }) {
      const recordId = known.idOf(recordAddress(desired.attributes));
      const { reader } = readers.resolve(known, desired.attributes.reader);
      return recordId === undefined || !reader ? undefined : grantId(recordId, reader.id);
    },

    // The reader is the grant's identity (its id is the reader's): it never drifts. A directory entry renamed with
    // a `moved` block names the same reader, which state recorded under the old name.
    view: () => ({}),
    // `until` and `reason` are cplane's own (no operation reads them back): shown in a create, never diffed.
    desiredView: ({ attributes }) => ({
      reader: attributes.reader,
      ...(attributes.until !== undefined ? { until: attributes.until } : {}),
      ...(attributes.reason !== undefined ? { reason: attributes.reason } : {}),
    }),
    endsAt: ({ attributes }) =>
      attributes.until === undefined
        ? undefined
        : { at: attributes.until, ...(attributes.reason !== undefined ? { reason: attributes.reason } : {}) },

    // A grant exists or not; what can change is the reader's key it was wrapped for (state records its id, as no
    // operation reads it back): a new key is a change of the grant, wrapped again for it. Its reader must still be
    // usable (an inactive Service Account is a problem even for a grant that exists).
    diff({ desired, known, state }) {
      const { reader, problem } = readers.resolve(known, desired.attributes.reader);
      if (!reader) return { changes: [], problems: [problem] };
      const before = state?.inputs.readerKeyId;
      const after = readerKeyId(reader);
      if (typeof before !== 'string' || before === after) return { changes: [] };
      const note = reader.keyFromRepository
        ? 'the key the repository gives'
        : 'offered by the API, not pinned: only a pin in directory.serviceAccounts makes this safe';
      return { changes: [{ path: 'readerKey', before, after, note, cause: 'reader-key-changed' }], inputs: { readerKeyId: after } };
    },

    planCreate({ desired, known }) {
      const { reader, problem } = readers.resolve(known, desired.attributes.reader);
      if (!reader) return { writes: [], problems: [problem] };
      const record = known.idOf(recordAddress(desired.attributes)) ?? { $ref: recordAddress(desired.attributes) };
      return {
        writes: [
          readers.grant(
            record,
            reader,
            `grant record ${desired.attributes.record} to ${noun} ${desired.attributes.reader}, its data key wrapped for it`,
          ),
        ],
        inputs: { readerKeyId: readerKeyId(reader) },
      };
    },

    planUpdate: (req) => planGrantUpdate(readers, req),

    planDelete: (req) => planGrantDelete(readers, req),
  });
}

export const serviceAccountGrantKind = grantKind(serviceAccountReaders);
export const userShareKind = grantKind(userReaders);
export const groupShareKind = grantKind(groupReaders);
