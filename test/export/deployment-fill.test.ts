// What `export --as-deployment` fills in for a new deployment, as plain functions of the configuration and the
// account: the others' patterns (token, after, environment, baseUrl, varFiles), and the directory's ids read from
// this account's shares, with a placeholder for every key it cannot vouch for.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conventionalSettings } from '../../src/export/deployment-conventions.js';
import { directoryFill } from '../../src/export/directory-fill.js';
import type { DirectoryEntry } from '../../src/export/build-model.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cplane-deployment-fill-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("the others' patterns", () => {
  it('gives prod-us the token, environment and wave of prod-eu beside it, and the same baseUrl', () => {
    const url = 'https://api.example.com';
    const made = conventionalSettings(
      {
        staging: { account: 's', token: 'staging', environment: 'env-staging', baseUrl: url },
        'prod-eu': { account: 'e', token: 'prod_eu', environment: 'env-prod-eu', baseUrl: url, after: ['staging'], autoApprove: 'true' },
      },
      'prod-us',
      dir,
    );
    expect(made.settings).toEqual({ after: ['staging'], token: 'prod_us', environment: 'env-prod-us', baseUrl: url });
    expect(made.notes).toEqual([
      'autoApprove: not copied from prod-eu (a rule decides what applies without a person): until you give it one, it asks for approval.',
    ]);
    expect(made.open).toEqual([]);
  });

  it('joins the last wave of a chain, names a token for itself without a pattern, and none when nobody chooses one', () => {
    const chain = {
      a: { account: '1', token: 'first' },
      b: { account: '2', after: ['a'], token: 'second' },
      c: { account: '3', after: ['b'] },
    };
    const made = conventionalSettings(chain, 'd-1', dir);
    expect(made.settings).toEqual({ after: ['b'], token: 'd_1' });
    expect(made.filled.find((f) => f.key === 'after')!.from).toBe(
      'the same wave (3) as c, the last: it applies after the others; change it to apply earlier',
    );
    expect(conventionalSettings({ a: { account: '1' }, b: { account: '2' } }, 'c', dir).settings).toEqual({});
  });

  it('writes the var files of the pattern when they exist, and names them, unwritten, when they do not', async () => {
    const existing = { a: { account: '1', varFiles: ['vars/a.yaml'] }, b: { account: '2', varFiles: ['vars/b.yaml'] } };
    const missing = conventionalSettings(existing, 'c', dir);
    expect(missing.settings.varFiles).toBeUndefined();
    expect(missing.open).toEqual([
      {
        key: 'varFiles',
        what: "the var files vars/c.yaml of this account, which the others' pattern names and which do not exist: create them as the others' are, then add varFiles: [vars/c.yaml]",
        placeholder: false,
      },
    ]);
    await mkdir(join(dir, 'vars'));
    await writeFile(join(dir, 'vars', 'c.yaml'), 'env: c\n');
    expect(conventionalSettings(existing, 'c', dir).settings.varFiles).toEqual(['vars/c.yaml']);
  });
});

const group = (id: string): DirectoryEntry => {
  const local = `group-${id}`;
  const prefix = local.replaceAll('-', '_');
  return { section: 'groups', local, id, idVar: `${prefix}_id`, keyVar: `${prefix}_public_key`, noun: 'group' };
};
const CONFIG = {
  directory: {
    groups: {
      team: { id: '${var.team_id}', publicKey: '${var.team_key}' },
      ops: { id: '${var.ops_id}', publicKey: '${var.ops_key}' },
      audit: { id: '${var.audit_id}', publicKey: '${var.audit_key}' },
    },
    serviceAccounts: { deployer: { keyId: '${var.deployer_key_id}' }, bot: { keyId: '${var.bot_key_id}' } },
  },
};

describe("the directory's variables", () => {
  it('reads each group id from the shares it is the one reader common to, and writes a placeholder for every key', () => {
    const [x, y] = [group('0d000000-0000-4000-8000-00000000000x'), group('0d000000-0000-4000-8000-00000000000y')];
    const fill = directoryFill(
      [CONFIG],
      {
        directory: [x, y],
        // db is shared with team and ops (x and y live); logs with team only (x): team is x, so ops is y.
        grants: [
          { section: 'groups', address: 'projects.core.records.db', configured: ['team', 'ops'], live: [x.local, y.local] },
          { section: 'groups', address: 'projects.core.records.logs', configured: ['team'], live: [x.local] },
        ],
        pins: [
          { name: 'deployer', keyId: 'x25519:0123456789abcdef' },
          { name: 'bot', keyId: 'x25519:\u001b[31m' },
        ],
      },
      () => true,
    );
    expect(fill.filled.map((f) => [f.key, f.value, f.from])).toEqual([
      ['variables.team_id', x.id, "this account's shares: projects.core.records.db is shared with it"],
      ['variables.ops_id', y.id, "this account's shares: projects.core.records.db is shared with it"],
    ]);
    expect(Object.fromEntries(fill.open.map((o) => [o.key, o.what]))).toEqual({
      'variables.team_key':
        "the public key (X25519, base64) of group team (directory.groups.team) in this deployment's account: no operation returns it",
      'variables.ops_key':
        "the public key (X25519, base64) of group ops (directory.groups.ops) in this deployment's account: no operation returns it",
      'variables.audit_id':
        "the id of group audit (directory.groups.audit) in this deployment's account: no record of this account is shared with it, and no operation lists groups",
      'variables.audit_key':
        "the public key (X25519, base64) of group audit (directory.groups.audit) in this deployment's account: no operation returns it",
      'variables.deployer_key_id':
        "the key id of Service Account deployer in this deployment's account, as its dashboard shows it: the API offers x25519:0123456789abcdef, which cplane does not pin on the API's word",
      // A key id the API makes up is not quoted: it would be written into the file and printed.
      'variables.bot_key_id':
        "the key id of Service Account bot in this deployment's account, as its dashboard shows it: the API offers a key id that is not one (x25519: and 16 hex digits)",
    });
    expect(fill.values.deployer_key_id).toBe(`<fill in: ${fill.open.find((o) => o.key === 'variables.deployer_key_id')!.what}>`);
    expect(fill.unmatched).toEqual([]);
  });

  it('leaves out what the deployment need not give, and names live readers no entry stands for', () => {
    const z = group('0d000000-0000-4000-8000-00000000000z');
    const fill = directoryFill([CONFIG], { directory: [z], grants: [], pins: [] }, (v) => v === 'team_id');
    expect(fill.open.map((o) => o.key)).toEqual(['variables.team_id']);
    expect(fill.unmatched).toEqual([z]);
  });
});
