// What offboarding a user changes in the desired state, as access/offboard.ts designs it from a loaded
// configuration: the user's shares taken out (the object form with `until` too, and the record's `grants.users` and
// `until` with them), other readers' untouched; the records the user could read, each with how; a generated value
// rotated, a value from a source named for its owner; a record never applied left out. The plan, its file and apply
// are tested through the CLI in test/e2e/access-offboard.test.ts.
import { describe, expect, it } from 'vitest';
import type { DesiredState } from '../../src/config/index.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { designOffboarding, unknownUserProblem } from '../../src/access/index.js';
import { accessKinds, type AccessKind } from '../../src/providers/index.js';
import { load } from '../config/helpers.js';

const ids = {
  alice: '0b000000-0000-4000-8000-000000000003',
  bob: '0b000000-0000-4000-8000-000000000001',
  ops: '0d000000-0000-4000-8000-000000000001',
};
const principal = (id: string) => `{ id: ${id}, publicKey: "${printableKeyPair(id).publicKey}" }`;

const CONFIG = `version: 1
projects:
  shop:
    records:
      api-key:
        value: { generate: { length: 32 } }
        grants:
          users: [bob, { name: alice, until: "2030-01-01T00:00:00Z", reason: INC-1 }]
      cert:
        value: { file: cert.pem }
        grants: { groups: [ops] }
      notes:
        grants: { groups: [ops] }
      never-applied:
        value: { env: NEW_ONE }
        grants: { users: [alice] }
directory:
  users:
    alice: ${principal(ids.alice)}
    bob: ${principal(ids.bob)}
  groups:
    ops:
      id: ${ids.ops}
      publicKey: "${printableKeyPair(ids.ops).publicKey}"
      members: [bob, alice]
`;

async function loaded(): Promise<DesiredState> {
  const { desired, diagnostics } = await load({ 'main.yaml': CONFIG, 'cert.pem': 'not a real cert' }, { env: { NEW_ONE: 'x' } });
  expect(diagnostics).toEqual([]);
  return desired!;
}

/** State holding every address of the configuration but `never-applied`'s: what a first apply before it made. */
const applied = (desired: DesiredState) =>
  Object.fromEntries(desired.resources.filter((r) => !r.address.includes('never-applied')).map((r) => [r.address, {}])) as never;

describe('offboarding design', () => {
  it("takes out the user's shares, also one that ends, and leaves the others'", async () => {
    const desired = await loaded();
    const design = designOffboarding(desired, 'alice', applied(desired));
    const addresses = design.desired.resources.map((r) => r.address);
    expect(addresses).not.toContain('user_share.shop/api-key/alice');
    expect(addresses).toContain('user_share.shop/api-key/bob');
    expect(addresses).toContain('group_share.shop/cert/ops');
    const apiKey = design.desired.resources.find((r) => r.address === 'record.shop/api-key')!;
    expect(apiKey.attributes.grants).toEqual({ users: ['bob'] });
    expect(apiKey.attributes.grantsUntil).toBeUndefined();
    // The configuration as loaded is not changed.
    expect(desired.resources.find((r) => r.address === 'record.shop/api-key')!.attributes.grants).toEqual({ users: ['bob', 'alice'] });
    // Only the share in state is revoked: the one of a record never applied does not exist.
    expect(design.offboard.revoked).toEqual(['user_share.shop/api-key/alice']);
  });

  it('lists each record the user could read with how, rotating a generated value and naming the source of the others', async () => {
    const desired = await loaded();
    const design = designOffboarding(desired, 'alice', applied(desired));
    expect(design.replace).toEqual(['record.shop/api-key']);
    expect(design.offboard.records).toEqual([
      { address: 'record.shop/api-key', via: ['share'], value: 'rotated' },
      { address: 'record.shop/cert', via: ['group ops'], value: 'owner', source: expect.stringMatching(/^file \/.*\/cert\.pem$/) },
      { address: 'record.shop/notes', via: ['group ops'], value: 'owner', source: 'none in the configuration' },
    ]);
    expect(design.offboard.groups).toEqual(['ops']);
    expect(design.offboard.lines.map((l) => [l.line, l.what])).toEqual([
      [8, 'user_share.shop/api-key/alice: alice in grants.users of record.shop/api-key'],
      [16, 'user_share.shop/never-applied/alice: alice in grants.users of record.shop/never-applied'],
      [19, 'directory.users.alice, once nothing else names the user'],
      [25, 'alice in directory.groups.ops.members'],
    ]);
  });

  it('a user in no group reads only the records shared with them', async () => {
    const desired = await loaded();
    const withoutGroups = { ...desired, directory: { ...desired.directory!, groups: {} } };
    const design = designOffboarding(withoutGroups, 'bob', applied(desired));
    expect(design.offboard.records).toEqual([{ address: 'record.shop/api-key', via: ['share'], value: 'rotated' }]);
    expect(design.offboard.groups).toEqual([]);
  });

  it('an unknown user is named with the closest declared users', async () => {
    const desired = await loaded();
    expect(unknownUserProblem(desired, 'alcie')).toMatchObject({
      code: 'unknown_directory_name',
      summary: 'Unknown user "alcie": it is not declared in directory.users; did you mean "alice"?',
      detail: 'Declared users: alice, bob.',
    });
    expect(unknownUserProblem(desired, 'alice')).toBeUndefined();
  });

  it('follows a kind that gives access by its declaration alone, one the registry does not list', async () => {
    // A user's role on a project, declared as the registry's kinds declare access (touches + relations.access).
    const userRole: AccessKind = {
      kind: 'project_user_role',
      principal: 'user',
      attribute: 'user',
      on: 'project',
      key: 'userRoles',
      via: 'project-group-role',
      role: 'role',
    };
    const desired = await loaded();
    const role = {
      ...desired.resources.find((r) => r.address === 'project.shop')!,
      kind: 'project_user_role',
      address: 'project_user_role.shop/alice',
      localName: 'alice',
      attributes: { project: 'shop', user: 'alice', role: 'reader' },
    };
    const design = designOffboarding({ ...desired, resources: [...desired.resources, role] }, 'alice', applied(desired), [
      ...accessKinds,
      userRole,
    ]);
    expect(design.desired.resources.map((r) => r.address)).not.toContain('project_user_role.shop/alice');
    expect(design.offboard.records.map((r) => [r.address, r.via])).toEqual([
      ['record.shop/api-key', ['share', 'role reader on project.shop']],
      ['record.shop/cert', ['role reader on project.shop', 'group ops']],
      ['record.shop/notes', ['role reader on project.shop', 'group ops']],
    ]);
    expect(design.offboard.lines.map((l) => l.what)).toContain('project_user_role.shop/alice: alice in userRoles of project.shop');
  });
});
