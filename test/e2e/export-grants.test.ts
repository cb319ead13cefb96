// Export writes a record's grants: the Service Account by name, the user and the group by directory entries
// declared from their ids. The public keys no operation returns are left to fill in, so the folder is refused
// until they are; filled in with the fixture keys, a plan against the same account finds nothing to do, and
// against an account without that Service Account it is a plan problem at the exported name, not a silent drop.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { directoryYaml } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const staging = fixtures.accounts[1]!.id;
const [dana, platform] = [fixtures.users[2]!, fixtures.groups[0]!];
let w: World;
let out: string;
let projectYaml: string;
let mainYaml: string;
let exportReport: string;

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  shop:
    records:
      db-password:
        value: { env: DB_PASSWORD }
        grants:
          serviceAccounts: [ci-deployer]
          users: [dana]
          groups: [platform]
${directoryYaml({ users: { dana: dana.id }, groups: { platform: platform.id } })}`);
  const applied = await w.cli(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: 'export_grants_value_5521' });
  expect(applied.stderr).toBe('');
  out = join(w.dir, '..', 'exported');
  const exported = await w.cli(['export', '--project', 'shop', '--out', out, '--adopt']);
  expect(exported.stderr).toBe('');
  expect(exported.code).toBe(0);
  exportReport = exported.stdout;
  projectYaml = readFileSync(join(out, 'project-shop.yaml'), 'utf8');
  mainYaml = readFileSync(join(out, 'main.yaml'), 'utf8');
});
afterAll(async () => w.close());

const userLocal = `user-${dana.id}`;
const groupLocal = `group-${platform.id}`;

describe('export of record grants', () => {
  it('lists the readers in the record: the Service Account by name, the user and group by directory name', () => {
    expect(projectYaml).toContain(`        grants:\n          groups: [${groupLocal}]\n          serviceAccounts: [ci-deployer]\n          users: [${userLocal}]\n`);
    expect(mainYaml).toContain(`directory:\n  groups:\n    ${groupLocal}:\n      id: ${platform.id}\n      publicKey: \${env.`);
    expect(exportReport).toContain(`the public key of user ${userLocal} (directory.users): fill it in, no operation returns it`);
  });

  it('is refused until the public keys are filled in', async () => {
    const plan = await w.cli(['plan', out, '--account', acme]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/main\.yaml:\d+:\d+: error: Environment variable "CPLANE_PUBLIC_KEY_USER_0B000000_0000_4000_8000_000000000003" is not set/);
  });

  it('plans no changes against the same account once the fixture public keys are written in', async () => {
    const filled = mainYaml
      .replace(/\$\{env\.CPLANE_PUBLIC_KEY_USER_[A-Z0-9_]+\}/, `"${printableKeyPair(dana.id).publicKey}"`)
      .replace(/\$\{env\.CPLANE_PUBLIC_KEY_GROUP_[A-Z0-9_]+\}/, `"${printableKeyPair(platform.id).publicKey}"`);
    writeFileSync(join(out, 'main.yaml'), filled);
    const plan = await w.cli(['plan', out, '--account', acme, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('is a plan problem at the exported Service Account name in an account without ci-deployer', async () => {
    const plan = await w.cli(['plan', out, '--account', staging]);
    expect(plan.code).toBe(1);
    const line = projectYaml.split('\n').findIndex((l) => l.includes('serviceAccounts: [ci-deployer]')) + 1;
    const col = projectYaml.split('\n')[line - 1]!.indexOf('ci-deployer') + 1;
    expect(plan.stderr).toContain(`project-shop.yaml:${line}:${col}: error: service_account_grant.shop/db-password/ci-deployer: no Service Account "ci-deployer" in account ${staging}`);
  });
});
