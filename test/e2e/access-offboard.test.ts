// `cplane access offboard USER`, through the real CLI and the emulator: Alice (Dana's id and key) has a direct
// share of a generated record, and reads through her group `platform` a record whose value comes from the
// environment (the group's role on the project) and a generated record of another project (a group share). The
// command saves a plan that revokes her share, rotates the two generated values, and lists the env record for its
// owner with the variable's name; it prints the configuration's lines that name her, at file:line:col, and never
// edits them. `apply FILE` applies exactly that plan; an edited plan is refused by its MAC; an unknown user is an
// error with the closest name.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { lyingProxy } from '../helpers/lying-proxy.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const dana = fixtures.users.find((u) => u.name === 'Dana Developer')!;
const platform = fixtures.groups.find((g) => g.name === 'platform')!;
const readerRole = fixtures.roles.find((r) => r.name === 'reader')!;
const DB_PASSWORD = 'db_password_offboard_5521';

const CONFIG = `version: 1
projects:
  shop:
    name: shop-offboard
    groupRoles: { platform: reader }
    records:
      api-key:
        value: { generate: { length: 32 } }
        grants:
          users: [alice]
      db-password:
        value: { env: DB_PASSWORD }
  ops:
    name: ops-offboard
    records:
      deploy-key:
        value: { generate: { length: 32 } }
        grants: { groups: [platform] }
directory:
  users:
    alice: { id: ${dana.id}, publicKey: "${printableKeyPair(dana.id).publicKey}" }
  groups:
    platform:
      id: ${platform.id}
      publicKey: "${printableKeyPair(platform.id).publicKey}"
      members: [alice]
  roles:
    reader: { id: ${readerRole.id} }
`;

/** Where `text` first appears after `after` in the configuration, as the CLI (run in the world's folder) names it: `infra/main.yaml:LINE:COL`. */
function placeOf(text: string, after = ''): string {
  const at = CONFIG.indexOf(text, CONFIG.indexOf(after));
  const before = CONFIG.slice(0, at).split('\n');
  return `infra/main.yaml:${before.length}:${before.at(-1)!.length + 1}`;
}

let w: World;
const env = { DB_PASSWORD };
const planFile = () => join(w.temp, 'p.plan');
const record = async (name: string) => (await w.client.listAll('listRecords', {})).find((r) => r.name === name)!;

// Each test arranges its own world: the configuration applied (in-process, the CLI's entry without a subprocess),
// then the steps before the one under test, in-process too; the step under test runs the real CLI.
beforeEach(async () => {
  w = await world({ account: acme });
  w.config(CONFIG);
  const applied = await w.run(['apply', w.dir, '--auto-approve'], env);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect((await record('api-key')).grants?.user_ids).toEqual([dana.id]);
});
afterEach(async () => w.close());

/** The offboarding plan saved to `p.plan` (in-process), then, with `applied`, applied (in-process). */
async function offboarded(applied = false): Promise<void> {
  const saved = await w.run(['access', 'offboard', 'alice', w.dir, '--out', 'p.plan'], env);
  if (saved.code !== 0) throw new Error(`the offboard plan failed: ${saved.stderr}`);
  if (!applied) return;
  const run = await w.run(['apply', planFile()], env);
  if (run.code !== 0) throw new Error(`the offboard apply failed: ${run.stderr}`);
}

it('an unknown user is an error naming the closest declared user; nothing is planned or saved', async () => {
  const result = await w.cli(['access', 'offboard', 'alicia', w.dir, '--out', 'p.plan'], env);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'Unknown user "alicia": it is not declared in directory.users; did you mean "alice"? Nothing was planned.',
  );
  expect(result.stderr).toContain('Declared users: alice.');
  expect(() => readFileSync(planFile())).toThrow();
  // A name is text from the command line: control characters in it are printed escaped, never sent to the terminal.
  const hostile = await w.cli(['access', 'offboard', 'ali\u001b[2Jce', w.dir], env);
  expect(hostile.code).toBe(1);
  expect(hostile.stderr).toContain('Unknown user "ali');
  expect(hostile.stderr).not.toContain('\u001b');
});

it('plans the share revoked, the generated values rotated and the env value for its owner, and prints the lines to remove', async () => {
  const result = await w.cli(['access', 'offboard', 'alice', w.dir, '--out', 'p.plan'], env);
  expect(result.code).toBe(0);
  const out = result.stdout;
  expect(out).toContain('# user_share.shop/api-key/alice will be revoked');
  expect(out).toContain(`Offboarding user alice (${dana.id}):`);
  expect(out).toContain('- user_share.shop/api-key/alice: share revoked');
  expect(out).toContain(
    '~ record.shop/api-key: rotated by cplane (a new generated value)  (read through: share; group platform (role reader on project.shop))',
  );
  expect(out).toContain('~ record.ops/deploy-key: rotated by cplane (a new generated value)  (read through: group platform)');
  expect(out).toContain(
    '! record.shop/db-password: needs a new value from its owner (env DB_PASSWORD); then apply  (read through: group platform (role reader on project.shop))',
  );
  expect(out).toContain(
    "! remove alice from the group platform in the dashboard before applying (no API operation changes a group's members)",
  );
  // In file order, each where the name is written.
  expect(out).toContain(
    [
      `  ${placeOf('alice]', 'users: [')}  user_share.shop/api-key/alice: alice in grants.users of record.shop/api-key`,
      `  ${placeOf('alice:', 'directory:')}  directory.users.alice, once nothing else names the user`,
      `  ${placeOf('alice]', 'members:')}  alice in directory.groups.platform.members`,
    ].join('\n'),
  );
  // The env record is not rotated: only its owner can give a new value.
  expect(out).not.toContain('# record.shop/db-password will be');
  expect(result.stderr).toContain('Saved the plan that offboards alice to');
  const saved = JSON.parse(readFileSync(planFile(), 'utf8')) as {
    replace: string[];
    offboard: { user: string; revoked: string[] };
    auth: { mac: string };
  };
  expect(saved.replace.sort()).toEqual(['record.ops/deploy-key', 'record.shop/api-key']);
  expect(saved.offboard).toMatchObject({ user: 'alice', revoked: ['user_share.shop/api-key/alice'] });
  expect(saved.auth.mac).toMatch(/\S/);
  // No secret in the plan file.
  expect(readFileSync(planFile(), 'utf8')).not.toContain(DB_PASSWORD);
  // A reviewer reads the saved plan again as it was printed.
  const shown = await w.cli(['show', planFile()]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain(`Offboarding user alice (${dana.id}):`);
  expect(shown.stdout).toContain('! record.shop/db-password: needs a new value from its owner (env DB_PASSWORD); then apply');
});

it('--json prints the plan with its offboard part for machines', async () => {
  const result = await w.cli(['access', 'offboard', 'alice', w.dir, '--json'], env);
  expect(result.code).toBe(0);
  const plan = JSON.parse(result.stdout) as { offboard: { records: unknown[]; groups: string[] } };
  expect(plan.offboard.groups).toEqual(['platform']);
  expect(plan.offboard.records).toContainEqual({
    address: 'record.shop/db-password',
    via: ['group platform (role reader on project.shop)'],
    value: 'owner',
    source: 'env DB_PASSWORD',
  });
});

it('an edited plan is refused by its MAC: another user, or a rotation taken out', async () => {
  await offboarded();
  const original = readFileSync(planFile(), 'utf8');
  for (const edit of [(p: { offboard: { user: string } }) => (p.offboard.user = 'bob'), (p: { replace: string[] }) => p.replace.pop()]) {
    const plan = JSON.parse(original);
    edit(plan);
    const forged = join(w.temp, 'forged.plan');
    writeFileSync(forged, JSON.stringify(plan));
    const result = await w.cli(['apply', forged], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'was changed since it was made, or made with another state key: its MAC does not match. Nothing was applied, and no connection was opened.',
    );
  }
  expect((await record('api-key')).current_version).toBe(1);
});

it('apply FILE applies it: the share is gone and each generated record has a new version; the configuration is unchanged', async () => {
  await offboarded();
  const before = { db: (await record('db-password')).current_version };
  const result = await w.cli(['apply', planFile()], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const apiKey = await record('api-key');
  expect(apiKey.grants?.user_ids ?? []).toEqual([]);
  expect(apiKey.current_version).toBe(2);
  expect((await record('deploy-key')).current_version).toBe(2);
  expect((await record('deploy-key')).grants?.group_ids).toEqual([platform.id]);
  expect((await record('db-password')).current_version).toBe(before.db);
  expect(readFileSync(join(w.dir, 'main.yaml'), 'utf8')).toBe(CONFIG);
});

it('once the printed lines are removed, the configuration plans no change: it says what apply did', async () => {
  await offboarded(true);
  // `users:` is left empty by its only entry: a person removes it too.
  w.config(
    CONFIG.replace('users: [alice]', 'users: []')
      .replace('      members: [alice]\n', '')
      .replace(/ {2}users:\n {4}alice: \{ id: [^\n]*\n/, ''),
  );
  const plan = await w.cli(['plan', w.dir, '--detailed-exitcode'], env);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);
});

/** The API's answer with Dana's id taken out of every record's `grants.user_ids`: a server hiding her share. */
function withoutDanasShare(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(withoutDanasShare);
  if (json === null || typeof json !== 'object') return json;
  const copy = Object.fromEntries(Object.entries(json).map(([key, value]) => [key, withoutDanasShare(value)]));
  const ids = (copy as { user_ids?: unknown }).user_ids;
  return Array.isArray(ids) ? { ...copy, user_ids: ids.filter((id) => id !== dana.id) } : copy;
}

it('a server that hides her share cannot give Alice the rotated value: the plan rotates it for the readers it knows only', async () => {
  const proxy = await lyingProxy(w.emulator.url, (request, answer) =>
    request.method === 'GET' && request.path.includes('/records') ? withoutDanasShare(answer.json) : undefined,
  );
  try {
    const viaProxy = { ...env, CPLANE_BASE_URL: proxy.url };
    const saved = await w.run(['access', 'offboard', 'alice', w.dir, '--out', 'p.plan'], viaProxy);
    expect(saved.code).toBe(0);
    const applied = await w.cli(['apply', planFile()], viaProxy);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  } finally {
    await proxy.close();
  }
  const apiKey = await record('api-key');
  expect(apiKey.current_version).toBe(2);
  // The lie kept her share from being revoked, so the server still lists her; what it holds for her opens no version 2.
  expect(apiKey.grants?.user_ids).toEqual([dana.id]);
  const read = await w.cliAs(fixtures.tokens.recordOwner, ['read', '--record-id', apiKey.record_id, '--account', acme], {
    CPLANE_SA_KEY: privateKeyOf(dana.id),
  });
  expect(read.code).not.toBe(0);
  expect(read.stdout).toBe('');
  // Her wrapper is of version 1's data key, which sealed the value she may already have read; version 2's is not hers.
  expect(read.stderr).toContain('WRAP_OTHER_VERSION: The data key was wrapped for value version 1, and the current version is 2');
});
