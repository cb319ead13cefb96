// record_owner's cases (test/helpers/kind-cases.ts): the model of a kind's file in docs/architecture.md's recipe.
import { fixtures } from '../../src/emulator/fixtures.js';
import type { KindCases } from '../helpers/kind-cases.js';
import { directoryYaml } from '../helpers/readers.js';

const acme = fixtures.accounts[0]!.id;
const [rex, dana] = [fixtures.users[1]!, fixtures.users[2]!];

/** A record in Acme owned by the directory user given (none: no `owner`). */
const ownedRecord = (owner: string | undefined) => `projects:
  app:
    records:
      r:
        tags: [a]
${owner ? `        owner: { user: ${owner} }\n` : ''}${directoryYaml({ users: { dana: dana.id, rex: rex.id } })}`;

export const cases: KindCases = {
  kind: 'record_owner',
  // Transferred to dana, then to rex; removed, it is forgotten and rex stays the owner.
  conformance: {
    account: acme,
    address: 'record_owner.app/r',
    create: ownedRecord('dana'),
    changes: [{ config: ownedRecord('rex') }],
    remove: ownedRecord(undefined),
    removed: (live: { owner_user_id: string }) => live.owner_user_id === rex.id,
  },
  async arrange(admin, ids) {
    const projectId = (await admin.call('createProject', { body: { accountId: acme, name: 'owner-cases', description: '' } })).project_id;
    const value = {
      ciphertext: Buffer.from('owned').toString('base64'),
      wrapper: { alg: 'xchacha20poly1305', keyId: 'user:ada', wrappedDek: 'dek' },
    };
    ids.recordToTransfer = (await admin.call('createRecord', { body: { projectId, name: 'to-transfer', value } })).record_id;
  },
  operations: {
    transferRecordOwnership: {
      call: (ids) => ({ params: { id: ids.recordToTransfer! }, body: { userId: dana.id } }),
      // The fourth fixture user is no member of the seeded record's account.
      failure: {
        call: () => ({ params: { id: fixtures.records[0]!.id }, body: { userId: fixtures.users[3]!.id } }),
        expect: [400, 'target_not_a_member'],
      },
    },
  },
};
