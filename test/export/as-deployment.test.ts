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
  it('gives the ids it matched, names the variables left to give and the entries it did not match, keeping the file', async () => {
    await writeFile(join(dir, 'main.yaml'), MAIN);
    const target = await findDeploymentsFile(dir, 'b');
    expect(target.directoryVars).toEqual(['user_x_id', 'user_x_public_key', 'group_y_id', 'group_y_public_key']);
    const added = await addDeployment(
      target,
      'b',
      '0a000000-0000-4000-8000-000000001002',
      [
        entry('users', 'user-x', '0b000000-0000-4000-8000-0000000000aa'),
        entry('groups', 'group-z', '0c000000-0000-4000-8000-0000000000bb'),
      ],
      nothingInferred,
    );
    expect(added.given).toEqual(['user_x_id']);
    expect(added.toFill).toEqual(['user_x_public_key', 'group_y_id', 'group_y_public_key']);
    expect(added.unmatched.map((d) => d.local)).toEqual(['group-z']);
    const text = await readFile(join(dir, 'main.yaml'), 'utf8');
    expect(text).toBe(
      MAIN.replace(
        '# first\n',
        '# first\n  b:\n    account: 0a000000-0000-4000-8000-000000001002\n    variables: { user_x_id: 0b000000-0000-4000-8000-0000000000aa }\n',
      ),
    );
  });

  it('refuses a taken name, an account a deployment has, a folder without deployments:, and a name that is not one', async () => {
    await writeFile(join(dir, 'main.yaml'), MAIN);
    await expect(findDeploymentsFile(dir, 'a')).rejects.toThrow(`The configuration ${dir} already has a deployment "a"`);
    await expect(findDeploymentsFile(dir, '../x')).rejects.toThrow('--as-deployment "../x" is not a deployment name.');
    await expect(
      addDeployment(await findDeploymentsFile(dir, 'b'), 'b', '0a000000-0000-4000-8000-000000001001', [], nothingInferred),
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
    await addDeployment(target, 'b', '0a000000-0000-4000-8000-000000001002', [], {
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
