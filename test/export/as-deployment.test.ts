// --as-deployment's edit of an existing configuration, on real files: the deployment is added with the ids of
// the directory entries the configuration declares variables for, the comments and the rest of the file are kept,
// and what is left to give (public keys, entries of the configuration this account did not match) is named.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addDeployment, findDeploymentsFile } from '../../src/export/as-deployment.js';
import type { DirectoryEntry } from '../../src/export/build-model.js';
import type { Inferred } from '../../src/export/infer-variables.js';

const nothingInferred: Inferred = { values: new Map(), conflicts: new Map() };
const none = { directory: [], pins: [] };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cplane-as-deployment-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MAIN = `version: 1
# the variables every deployment gives
variables:
  user_x_id: { description: id }
  user_x_public_key: { description: key }
  group_y_id: {}
  group_y_public_key: {}
deployments:
  a: { account: 0a000000-0000-4000-8000-000000001001, variables: { user_x_id: u1 } } # first
directory:
  users:
    user-x: { id: "\${var.user_x_id}", publicKey: "\${var.user_x_public_key}" }
  groups:
    group-y: { id: "\${var.group_y_id}", publicKey: "\${var.group_y_public_key}" }
`;
const entry = (section: 'users' | 'groups', local: string, id: string): DirectoryEntry => {
  const prefix = local.replaceAll('-', '_');
  return { section, local, id, idVar: `${prefix}_id`, keyVar: `${prefix}_public_key`, noun: section === 'users' ? 'user' : 'group' };
};

describe('adding a deployment', () => {
  it('gives the ids it matched, writes a placeholder for each value left to give, names the entries it did not match, keeping the file', async () => {
    await writeFile(join(dir, 'main.yaml'), MAIN);
    const target = await findDeploymentsFile(dir, 'b');
    const added = await addDeployment(
      target,
      'b',
      '0a000000-0000-4000-8000-000000001002',
      {
        directory: [
          entry('users', 'user-x', '0b000000-0000-4000-8000-0000000000aa'),
          entry('groups', 'group-z', '0c000000-0000-4000-8000-0000000000bb'),
        ],
        pins: [],
      },
      nothingInferred,
    );
    expect(added.filled).toEqual([
      { key: 'variables.user_x_id', value: '0b000000-0000-4000-8000-0000000000aa', from: 'the same id in this account' },
    ]);
    // What no operation gives is a placeholder at its line, the column validate's error gives (inside the quotes).
    expect(added.open.map((o) => [o.key, o.line, o.col])).toEqual([
      ['variables.user_x_public_key', 14, 27],
      ['variables.group_y_id', 15, 20],
      ['variables.group_y_public_key', 16, 28],
    ]);
    expect(added.unmatched.map((d) => d.local)).toEqual(['group-z']);
    const text = await readFile(join(dir, 'main.yaml'), 'utf8');
    expect(text).toBe(
      MAIN.replace(
        '# first\n',
        '# first\n  b:\n    account: 0a000000-0000-4000-8000-000000001002\n    variables:\n' +
          '      user_x_id: 0b000000-0000-4000-8000-0000000000aa\n' +
          `      user_x_public_key: "<fill in: the public key (X25519, base64) of user user-x (directory.users.user-x) in this deployment's account: no operation returns it>"\n` +
          `      group_y_id: "<fill in: the id of group group-y (directory.groups.group-y) in this deployment's account: no record of this account is shared with it, and no operation lists groups>"\n` +
          `      group_y_public_key: "<fill in: the public key (X25519, base64) of group group-y (directory.groups.group-y) in this deployment's account: no operation returns it>"\n`,
      ),
    );
  });

  it('refuses a taken name, an account a deployment has, a folder without deployments:, and a name that is not one', async () => {
    await writeFile(join(dir, 'main.yaml'), MAIN);
    await expect(findDeploymentsFile(dir, 'a')).rejects.toThrow(`The configuration ${dir} already has a deployment "a"`);
    await expect(findDeploymentsFile(dir, '../x')).rejects.toThrow('--as-deployment "../x" is not a deployment name.');
    await expect(
      addDeployment(await findDeploymentsFile(dir, 'b'), 'b', '0a000000-0000-4000-8000-000000001001', none, nothingInferred),
    ).rejects.toThrow('Account 0a000000-0000-4000-8000-000000001001 is already the deployment "a" of');
    expect(await readFile(join(dir, 'main.yaml'), 'utf8')).toBe(MAIN);
    await writeFile(join(dir, 'main.yaml'), 'version: 1\naccount: ${var.account}\n');
    await expect(findDeploymentsFile(dir, 'b')).rejects.toThrow('has no `deployments:`');
    await expect(findDeploymentsFile(join(dir, 'missing'), 'b')).rejects.toThrow(`No configuration folder ${join(dir, 'missing')}.`);
  });
});

describe('a value read off a live object with a line break', () => {
  it('is written double-quoted on one line, and the file stays valid YAML (it failed: "Document with errors cannot be stringified")', async () => {
    await writeFile(
      join(dir, 'main.yaml'),
      'version: 1\nvariables:\n  env: {}\ndeployments:\n  a: { account: 0a000000-0000-4000-8000-000000001001, variables: { env: dev } }\nprojects:\n  app: { name: "app-${var.env}" }\n',
    );
    const target = await findDeploymentsFile(dir, 'b');
    await addDeployment(target, 'b', '0a000000-0000-4000-8000-000000001002', none, {
      values: new Map([['env', 'pr\nod']]),
      conflicts: new Map(),
    });
    const text = await readFile(join(dir, 'main.yaml'), 'utf8');
    expect(text).toContain('  b:\n    account: 0a000000-0000-4000-8000-000000001002\n    variables: { env: "pr\\nod" }\n');
    const reread = await findDeploymentsFile(dir, 'c');
    expect((reread.contents[0] as { deployments: Record<string, { variables: { env: string } }> }).deployments.b!.variables.env).toBe(
      'pr\nod',
    );
  });
});
