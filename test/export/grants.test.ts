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
import { groupShareProvider, loadConfiguration, serviceAccountGrantProvider, serviceAccounts, userShareProvider } from '../../src/providers/index.js';
import { liveAccount } from './live-fixture.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const KEY = Buffer.alloc(32, 7).toString('base64');
const HOSTILE = 'evil ${env.CPLANE_TOKEN}\n# injected';

/** The fixture account with record stripe-key (uuid 20) granted to two Service Accounts, a user and a group. */
function withGrants(): AccountObjects {
  const live = liveAccount();
  const grant = (reader: number) => ({ record_id: uuid(20), project_id: uuid(10), reader_id: uuid(reader) });
  const accounts = [...live.lookups.get(serviceAccounts)!, { ...(live.lookups.get(serviceAccounts)![0] as object), service_account_id: uuid(61), name: HOSTILE }];
  return {
    ...live,
    lookups: new Map([[serviceAccounts, accounts]]),
    objects: {
      ...live.objects,
      [serviceAccountGrantProvider.kind]: [grant(60), grant(61)],
      [userShareProvider.kind]: [grant(70)],
      [groupShareProvider.kind]: [grant(80)],
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
    expect(text('project-payments-eu.yaml')).toContain([
      '        grants:',
      '          groups: [group-00000000-0000-4000-8000-000000000080]',
      `          serviceAccounts: [${uuid(61)}, deploy-robot]`,
      '          users: [user-00000000-0000-4000-8000-000000000070]',
    ].join('\n'));
    expect(files.map((f) => f.text).join('\n')).not.toContain('injected');
  });

  it('declares a directory entry per user and group, its public key a placeholder to fill in', () => {
    expect(model.directory).toEqual([
      { section: 'users', local: 'user-00000000-0000-4000-8000-000000000070', id: uuid(70), env: 'CPLANE_PUBLIC_KEY_USER_00000000_0000_4000_8000_000000000070' },
      { section: 'groups', local: 'group-00000000-0000-4000-8000-000000000080', id: uuid(80), env: 'CPLANE_PUBLIC_KEY_GROUP_00000000_0000_4000_8000_000000000080' },
    ]);
    const main = text('main.yaml');
    expect(main).toContain(`      id: ${uuid(70)}\n      publicKey: \${env.CPLANE_PUBLIC_KEY_USER_00000000_0000_4000_8000_000000000070}`);
    expect(main).toMatch(/# {3}CPLANE_PUBLIC_KEY_USER_00000000_0000_4000_8000_000000000070 +the public key of user user-00000000-0000-4000-8000-000000000070 \(directory\.users\): fill it in, no operation returns it\n/);
    expect(main).toContain('# Users and groups the records are shared with. No operation returns their public keys');
    expect(model.placeholders.map((p) => p.env)).toContain('CPLANE_PUBLIC_KEY_GROUP_00000000_0000_4000_8000_000000000080');
  });

  it('gives a folder that validate refuses until the public keys are filled in, then loads with the grants', async () => {
    for (const file of files) await writeFile(join(dir, file.name), file.text);
    const load = (env: NodeJS.ProcessEnv) => loadConfiguration(dir, { variables: [{ name: 'account', value: 'a' }], env });
    const unfilled = await load({});
    expect(unfilled.diagnostics.map((d) => [d.code, d.summary])).toEqual([
      ['unresolved_variable', 'Environment variable "CPLANE_PUBLIC_KEY_USER_00000000_0000_4000_8000_000000000070" is not set (used as ${env.CPLANE_PUBLIC_KEY_USER_00000000_0000_4000_8000_000000000070})'],
      ['unresolved_variable', 'Environment variable "CPLANE_PUBLIC_KEY_GROUP_00000000_0000_4000_8000_000000000080" is not set (used as ${env.CPLANE_PUBLIC_KEY_GROUP_00000000_0000_4000_8000_000000000080})'],
    ].reverse());
    const filled = await load(Object.fromEntries(model.directory.map((d) => [d.env, KEY])));
    expect(filled.diagnostics).toEqual([]);
    const grants = filled.desired!.resources.filter((r) => [serviceAccountGrantProvider.kind, userShareProvider.kind, groupShareProvider.kind].includes(r.kind)).map((r) => r.address).sort();
    expect(grants).toEqual(model.adoptions.filter((a) => grants.includes(a.address)).map((a) => a.address).sort());
    expect(grants).toHaveLength(4);
  });
});
