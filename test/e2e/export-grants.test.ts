// Export writes a record's grants: the Service Account by name, the user and the group by directory entries
// declared from their ids. The public keys no operation returns are left to fill in, so the folder is refused
// until they are; filled in with the fixture keys, a plan against the same account finds nothing to do, and
// against an account without that Service Account it is a plan problem at the exported name, not a silent drop.
import { readFileSync } from 'node:fs';
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
  const applied = await w.run(['apply', w.dir, '--auto-approve'], { DB_PASSWORD: 'export_grants_value_5521' });
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
const userVar = userLocal.replaceAll('-', '_');
const groupVar = groupLocal.replaceAll('-', '_');
/** The directory variables with the values of the exported account (the fixtures' ids and keys). */
const directoryVars = () => [
  '--var',
  `${userVar}_id=${dana.id}`,
  '--var',
  `${userVar}_public_key=${printableKeyPair(dana.id).publicKey}`,
  '--var',
  `${groupVar}_id=${platform.id}`,
  '--var',
  `${groupVar}_public_key=${printableKeyPair(platform.id).publicKey}`,
];

describe('export of record grants', () => {
  it('lists the readers in the record: the Service Account by name, the user and group by directory name', () => {
    expect(projectYaml).toContain(
      `        grants:\n          groups: [${groupLocal}]\n          serviceAccounts: [ci-deployer]\n          users: [${userLocal}]\n`,
    );
    expect(mainYaml).toContain(
      `directory:\n  groups:\n    ${groupLocal}:\n      id: \${var.${groupVar}_id}\n      publicKey: \${var.${groupVar}_public_key}\n`,
    );
    expect(mainYaml).not.toContain(`id: ${platform.id}`);
    expect(exportReport).toContain('for each account you apply this folder to, give these variables');
    expect(exportReport).toContain(`  directory.users.${userLocal}: ${userVar}_id, ${userVar}_public_key\n`);
    expect(exportReport).toContain(`  directory.groups.${groupLocal}: ${groupVar}_id, ${groupVar}_public_key\n`);
  });

  it('is refused until the directory variables are given, and validates once they are', async () => {
    const plan = await w.cli(['plan', out, '--account', acme]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`${userVar}_public_key`);
    const validated = await w.cli(['validate', out, '--var', `account=${acme}`, ...directoryVars()]);
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
  });

  it('plans no changes against the same account given the variables of its ids and keys', async () => {
    const plan = await w.cli(['plan', out, '--account', acme, '--detailed-exitcode', ...directoryVars()]);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('is a plan problem at the exported Service Account name in an account without ci-deployer', async () => {
    const plan = await w.cli(['plan', out, '--account', staging, ...directoryVars()]);
    expect(plan.code).toBe(1);
    const line = projectYaml.split('\n').findIndex((l) => l.includes('serviceAccounts: [ci-deployer]')) + 1;
    const col = projectYaml.split('\n')[line - 1]!.indexOf('ci-deployer') + 1;
    expect(plan.stderr).toContain(
      `project-shop.yaml:${line}:${col}: error: service_account_grant.shop/db-password/ci-deployer: no Service Account "ci-deployer" in account ${staging}`,
    );
  });
});
