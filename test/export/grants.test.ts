// Export writes a record's grants as the names in its `grants:` lists: Service Accounts by name (by id when the
// account's name cannot be written as one), users and groups by directory entries it declares from their ids,
// whose public keys it never invents: the folder loads only once they are filled in.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildModel } from '../../src/export/build-model.js';
import { emitFiles } from '../../src/export/emit-yaml.js';
import type { AccountObjects } from '../../src/export/read-account.js';
import { groupShareKind, loadConfiguration, serviceAccountGrantKind, serviceAccounts, userShareKind } from '../../src/providers/index.js';
import { liveAccount } from './live-fixture.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const KEY = Buffer.alloc(32, 7).toString('base64');
const HOSTILE = 'evil ${env.CPLANE_TOKEN}\n# injected';

/** The fixture account with record stripe-key (uuid 20) granted to two Service Accounts, a user and a group. */
function withGrants(): AccountObjects {
  const live = liveAccount();
  const grant = (reader: number) => ({ record_id: uuid(20), project_id: uuid(10), reader_id: uuid(reader) });
  const accounts = [
    ...live.lookups.get(serviceAccounts)!,
    { ...(live.lookups.get(serviceAccounts)![0] as object), service_account_id: uuid(61), name: HOSTILE },
  ];
  return {
    ...live,
    lookups: new Map([[serviceAccounts, accounts]]),
    objects: {
      ...live.objects,
      [serviceAccountGrantKind.kind]: [grant(60), grant(61)],
      [userShareKind.kind]: [grant(70)],
      [groupShareKind.kind]: [grant(80)],
    },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cplane-export-grants-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('export of record grants', () => {
  const model = buildModel(withGrants(), { onlyUsedCredentials: false });
  const files = emitFiles(model, 'x.json');
  const text = (name: string) => files.find((f) => f.name === name)!.text;

  it('lists the readers in the record entry, a Service Account by name, a hostile name by id', () => {
    expect(text('project-payments-eu.yaml')).toContain(
      [
        '        grants:',
        '          groups: [group-00000000-0000-4000-8000-000000000080]',
        `          serviceAccounts: [${uuid(61)}, deploy-robot]`,
        '          users: [user-00000000-0000-4000-8000-000000000070]',
      ].join('\n'),
    );
    expect(files.map((f) => f.text).join('\n')).not.toContain('injected');
  });

  it("declares a directory entry per user and group, its id and public key variables, never the account's ids", () => {
    const [user, group] = ['user_00000000_0000_4000_8000_000000000070', 'group_00000000_0000_4000_8000_000000000080'];
    expect(model.directory).toEqual([
      {
        section: 'users',
        local: 'user-00000000-0000-4000-8000-000000000070',
        id: uuid(70),
        idVar: `${user}_id`,
        keyVar: `${user}_public_key`,
        noun: 'user',
      },
      {
        section: 'groups',
        local: 'group-00000000-0000-4000-8000-000000000080',
        id: uuid(80),
        idVar: `${group}_id`,
        keyVar: `${group}_public_key`,
        noun: 'group',
      },
    ]);
    const main = text('main.yaml');
    expect(main).toContain(
      `    user-00000000-0000-4000-8000-000000000070:\n      id: \${var.${user}_id}\n      publicKey: \${var.${user}_public_key}\n`,
    );
    expect(main).toContain(
      `  ${user}_id:\n    description: Id of user user-00000000-0000-4000-8000-000000000070 (directory.users) in the account applied to.\n`,
    );
    expect(main).toContain(
      `  ${group}_public_key:\n    description: Public key (X25519, base64) of group group-00000000-0000-4000-8000-000000000080 (directory.groups) in the account applied to.\n`,
    );
    expect(main).toContain('# Users and groups the records are shared with: their ids and public keys are variables');
    // The ids are the exported account's: written nowhere as values (the local names are only names).
    for (const id of [uuid(70), uuid(80)]) expect(main.split('\n').filter((l) => l.includes(`: ${id}`) || l.endsWith(id))).toEqual([]);
    expect(model.placeholders.map((p) => p.env).filter((e) => e.startsWith('CPLANE_PUBLIC_KEY'))).toEqual([]);
  });

  it('gives a folder that validate refuses until the variables are given, then loads with the grants', async () => {
    for (const file of files) await writeFile(join(dir, file.name), file.text);
    const load = (values: Record<string, string>) =>
      loadConfiguration(dir, {
        variables: [{ name: 'account', value: 'a' }, ...Object.entries(values).map(([name, value]) => ({ name, value }))],
        env: {},
      });
    const unfilled = await load({});
    expect(unfilled.desired).toBeUndefined();
    // Each of the four variables is named as unset (the ids they stand for are then not ids either).
    expect(unfilled.diagnostics.filter((d) => d.code === 'variable_unset')).toHaveLength(4);
    expect(unfilled.diagnostics.map((d) => d.summary).join('\n')).toContain('user_00000000_0000_4000_8000_000000000070_public_key');
    const filled = await load(
      Object.fromEntries(
        model.directory.flatMap((d) => [
          [d.idVar, d.id],
          [d.keyVar, KEY],
        ]),
      ),
    );
    expect(filled.diagnostics).toEqual([]);
    const grants = filled
      .desired!.resources.filter((r) => [serviceAccountGrantKind.kind, userShareKind.kind, groupShareKind.kind].includes(r.kind))
      .map((r) => r.address)
      .sort();
    expect(grants).toEqual(
      model.adoptions
        .filter((a) => grants.includes(a.address))
        .map((a) => a.address)
        .sort(),
    );
    expect(grants).toHaveLength(4);
  });
});
