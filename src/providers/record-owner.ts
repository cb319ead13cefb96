/**
 * A record's owner (`projects.P.records.R.owner: { user: NAME }`, addressed `record_owner.P/R`): a user of the
 * configuration's `directory:` made owner with POST /records/{id}/transfer-ownership. The records list shows
 * `owner_user_id`, so an owner changed outside cplane is drift, transferred back. Ownership cannot be given
 * back: `owner:` removed is forgotten, and the record keeps the owner it has.
 */
import type { RecordMetaT } from '../api/shapes.js';
import { undeclaredInDirectory } from '../config/index.js';
import { resourceAddress } from '../plan-model/index.js';
import { defineKind } from './define-kind.js';
import type { AttributesOf, Fields, FieldsEntry } from './field-types.js';
import { listRecordsOnce } from './record-list.js';
import type { Known, WritesResponse } from './types.js';
import { nullWhenNotFound, ref } from './view-diff.js';
import { writeSpec } from './write-spec.js';

type LiveOwner = Pick<RecordMetaT, 'record_id' | 'owner_user_id'>;

function transfer({ record, user }: RecordOwnerAttributes, known: Known): WritesResponse {
  const found = known.directory.users[user];
  if (!found) return { writes: [], problems: [undeclaredInDirectory('users', user, known.directory)] };
  const id = ref(known, resourceAddress('record', record));
  return {
    writes: [
      writeSpec(
        'transferRecordOwnership',
        { path: { id }, body: { userId: found.id }, effects: { id: { result: 'record_id' }, parents: { recordId: id } } },
        `make user ${user} the owner of record ${record}`,
      ),
    ],
  };
}

/** A user's name in `directory.users` for its id (the live owner); a name, or an id it does not declare, as it is. */
const nameOfUser = (user: unknown, known: Known) => Object.entries(known.directory.users).find(([, u]) => u.id === user)?.[0] ?? user;

const fields = {
  user: {
    schema: { description: 'The owner: a name in directory.users.', type: 'string', minLength: 1 },
    directory: 'users',
    required: true,
    live: 'owner_user_id',
    normalize: nameOfUser,
  },
} as const satisfies Fields;

/** An entry of this kind in a configuration file (it has no `lifecycle`). */
export type RecordOwnerConfig = FieldsEntry<typeof fields>;
type RecordOwnerAttributes = AttributesOf<typeof fields, 'record'>;

export const recordOwnerKind = defineKind<RecordOwnerAttributes, LiveOwner, RecordOwnerConfig>({
  kind: 'record_owner',
  parent: { kind: 'record', attribute: 'record', idField: 'recordId', removedWith: 'forgotten with' },
  description:
    "The record's owner, made so with POST /records/{id}/transfer-ownership. Ownership cannot be given back: removing owner forgets it.",
  fields,
  config: { key: 'owner', single: true, noun: 'the owner of record' },
  // No `export`: an exported folder names no owner (each would have to be declared in `directory.users` by hand).
  refreshOperations: ['listRecords'],
  readOperation: 'getRecord',
  writeOperations: ['transferRecordOwnership'],
  removeAction: 'forget',
  refresh: async (req) => ({ items: (await listRecordsOnce(req)).filter((r) => req.parentIds.includes(r.record_id)), failures: [] }),
  read: ({ client, id }) => nullWhenNotFound(() => client.call('getRecord', { path: { id } })),
  identify: ({ live }) => ({ id: live.record_id, parents: { recordId: live.record_id }, key: live.record_id, status: 'live' }),
  naturalKey: ({ desired, known }) => known.idOf(resourceAddress('record', desired.attributes.record)),
  planCreate: ({ desired, known }) => transfer(desired.attributes, known),
  planUpdate: ({ desired, known }) => transfer(desired.attributes, known),
  planDelete: ({ address }) => ({
    writes: [],
    notes: [`ownership cannot be given back: cplane forgets ${address}, and the record keeps its owner until someone transfers it`],
  }),
});
