// A record shared with a user and a group named in the configuration's `directory:` (their ids and public
// keys), through the real CLI and the emulator: apply shares it; Dana reads it with her own private key, and
// through the group with the group's key; a new value is wrapped again for both in the same apply; a share
// revoked behind cplane's back is drift that apply repairs; a name the directory does not declare is an error
// at the name with the closest names; removing the group revokes its share.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { directoryYaml, privateKeyOf, placeOf, wrapperFor } from '../helpers/readers.js';
import { acme, world, type World, type CliResult } from './helpers.js';

const [dana, platform] = [fixtures.users[2]!, fixtures.groups[0]!];
const FIRST = 'db_password_share_first_4410';
const SECOND = 'db_password_share_second_7781';

let w: World;
let recordId: string;

const config = (grants: string) =>
  w.config(`version: 1
projects:
  shop:
    name: shop-shares
    records:
      db-password:
        value: { env: DB_PASSWORD }
        grants:
${grants}
${directoryYaml({ users: { dana: dana.id }, groups: { platform: platform.id } })}`);

/** `cplane read` as Dana (her token), with the key in a 0600 file: hers, or her group's. */
async function readAsDana(keyOf: string): Promise<CliResult> {
  const keyFile = join(w.temp, `${keyOf}.key`);
  writeFileSync(keyFile, privateKeyOf(keyOf), { mode: 0o600 });
  return w.cliAs(fixtures.tokens.recordOwner, ['read', '--record-id', recordId, '--key-file', keyFile]);
}

// Each test arranges its own world: the steps before the one under test run in-process (the CLI's entry, no
// subprocess) or through the client; the step under test runs the real CLI. The leak scan runs the whole story.
beforeEach(async () => {
  w = await world({ account: acme, dataFile: true });
});
afterEach(async () => w.close());

async function appliedInProcess(value: string): Promise<void> {
  const apply = await w.run(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: value });
  expect(apply.code, apply.stderr).toBe(0);
}
const revokedFromDana = () => w.client.call('revokeRecordUser', { path: { id: recordId }, body: { userId: dana.id } });
/** The story so far, in-process, step by step as the tests below take it. */
const steps = {
  async shared() {
    config('          users: [dana]\n          groups: [platform]');
    await appliedInProcess(FIRST);
    recordId = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'db-password')!.record_id;
  },
  revokedOutside: revokedFromDana,
  repaired: () => appliedInProcess(FIRST),
  async sharedWithAdaOutside() {
    const ada = fixtures.users[0]!;
    await w.client.call('shareRecordWithUser', {
      path: { id: recordId },
      body: { userId: ada.id, wrappedDek: wrapperFor(await placeOf(w.client, recordId), ada.id) },
    });
    await appliedInProcess(FIRST);
  },
  async rewrapped() {
    await appliedInProcess(SECOND);
    await revokedFromDana();
    await appliedInProcess(SECOND);
  },
  async groupRemoved() {
    config('          users: [dana]\n          groups: []');
    await appliedInProcess(SECOND);
  },
};
async function story(...names: (keyof typeof steps)[]): Promise<void> {
  for (const name of names) await steps[name]();
}

it('apply shares the record with a user and a group; each reads it with its own private key', async () => {
  config('          users: [dana]\n          groups: [platform]');
  const plan = await w.cli(['plan', w.dir], { DB_PASSWORD: FIRST });
  expect(plan.stdout).toContain('# user_share.shop/db-password/dana will be created');
  expect(plan.stdout).toContain('# group_share.shop/db-password/platform will be created');
  const apply = await w.cli(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: FIRST });
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const record = (await w.client.listAll('listRecords', {})).find((r) => r.name === 'db-password')!;
  recordId = record.record_id;
  expect(record.grants).toMatchObject({ user_ids: [dana.id], group_ids: [platform.id] });

  expect((await readAsDana(dana.id)).stdout).toBe(`${FIRST}\n`);
  // Without her direct share, Dana is given her group's wrapper, which the group's key opens.
  await w.client.call('revokeRecordUser', { path: { id: recordId }, body: { userId: dana.id } });
  expect((await readAsDana(platform.id)).stdout).toBe(`${FIRST}\n`);
});

it('a share revoked outside cplane is drift, repaired by apply', async () => {
  await story('shared', 'revokedOutside');
  const plan = await w.cli(['plan', w.dir, '--detailed-exitcode'], { DB_PASSWORD: FIRST });
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('user_share.shop/db-password/dana was revoked outside cplane');
  expect((await w.cli(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: FIRST })).code).toBe(0);
  expect((await readAsDana(dana.id)).stdout).toBe(`${FIRST}\n`);
});

it('a share made outside cplane to a user the configuration does not list is revoked by apply (the list is authoritative)', async () => {
  await story('shared', 'revokedOutside', 'repaired');
  const ada = fixtures.users[0]!;
  await w.client.call('shareRecordWithUser', {
    path: { id: recordId },
    body: { userId: ada.id, wrappedDek: wrapperFor(await placeOf(w.client, recordId), ada.id) },
  });
  const plan = await w.cli(['plan', w.dir, '--detailed-exitcode'], { DB_PASSWORD: FIRST });
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain(`~ grants.users = "${ada.id}" -> null`);
  expect(plan.stdout).toContain('granted outside cplane; not listed, so revoked');
  expect((await w.cli(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: FIRST })).code).toBe(0);
  expect((await w.client.call('getRecord', { path: { id: recordId } })).grants?.user_ids).toEqual([dana.id]);
});

it('a new value is wrapped again for the user and the group in the same apply', async () => {
  await story('shared', 'revokedOutside', 'repaired', 'sharedWithAdaOutside');
  const plan = await w.cli(['plan', w.dir], { DB_PASSWORD: SECOND });
  expect(plan.stdout).toMatch(/~ value = \(sensitive\) +\(re-wrapped for 2 readers\)/);
  expect((await w.cli(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: SECOND })).code).toBe(0);
  expect((await readAsDana(dana.id)).stdout).toBe(`${SECOND}\n`);
  await w.client.call('revokeRecordUser', { path: { id: recordId }, body: { userId: dana.id } });
  expect((await readAsDana(platform.id)).stdout).toBe(`${SECOND}\n`);
  expect((await w.run(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: SECOND })).code).toBe(0);
});

it('a user the directory does not declare is an error at the name, with the closest names', async () => {
  config('          users: [dan]');
  const validate = await w.cli(['validate', w.dir]);
  expect(validate.code).toBe(1);
  expect(validate.stderr).toContain('infra/main.yaml:9:19');
  expect(validate.stderr).toContain('Unknown user "dan": it is not declared in directory.users; did you mean "dana"?');
});

it("removing the group revokes its share and leaves the user's", async () => {
  await story('shared', 'revokedOutside', 'repaired', 'sharedWithAdaOutside', 'rewrapped');
  config('          users: [dana]\n          groups: []');
  const plan = await w.cli(['plan', w.dir], { DB_PASSWORD: SECOND });
  expect(plan.stdout).toContain('# group_share.shop/db-password/platform will be revoked');
  expect((await w.cli(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: SECOND })).code).toBe(0);
  const record = await w.client.call('getRecord', { path: { id: recordId } });
  expect(record.grants).toMatchObject({ user_ids: [dana.id], group_ids: [] });
});

it("leaks neither the values nor the private keys: not in any output, the state folder or the service's data", async () => {
  await story('shared', 'revokedOutside', 'repaired', 'sharedWithAdaOutside', 'rewrapped', 'groupRemoved');
  for (const text of [...w.outputs, ...(await w.stored())]) {
    for (const secret of [FIRST, SECOND, privateKeyOf(dana.id), privateKeyOf(platform.id), w.env.CPLANE_STATE_KEY!])
      expect(text).not.toContain(secret);
  }
});
