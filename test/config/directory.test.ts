// The `directory:` block: users and groups with their public keys and roles by id, gathered from every
// file; a key that is not 32 bytes of base64, or a name given twice, is an error at its file:line:col.
import { describe, expect, it } from 'vitest';
import { printableKeyPair } from '../../src/emulator/keys.js';
import { BASE, load } from './helpers.js';

const dana = { id: '0b000000-0000-4000-8000-000000000003', publicKey: printableKeyPair('0b000000-0000-4000-8000-000000000003').publicKey };
const platform = {
  id: '0d000000-0000-4000-8000-000000000001',
  publicKey: printableKeyPair('0d000000-0000-4000-8000-000000000001').publicKey,
};
const env = { env: { OPENAI_API_KEY: 'sk', STRIPE_KEY: 'x' } };

describe('the directory block', () => {
  it('gives the kinds users, groups and roles by name, from every file', async () => {
    const { desired, diagnostics } = await load(
      {
        'main.yaml': `${BASE}directory:\n  users:\n    dana: { id: ${dana.id}, publicKey: "${dana.publicKey}" }\n`,
        'people.yaml': `directory:\n  groups:\n    platform: { id: ${platform.id}, publicKey: "${platform.publicKey}" }\n  roles:\n    admin: { id: 0c000000-0000-4000-8000-000000000001 }\n`,
      },
      env,
    );
    expect(diagnostics).toEqual([]);
    const lines = BASE.split('\n').length - 1;
    expect(desired?.directory).toEqual({
      users: { dana: { ...dana, source: { file: 'main.yaml', line: lines + 3, col: 5 } } },
      groups: { platform: { ...platform, source: { file: 'people.yaml', line: 3, col: 5 } } },
      roles: { admin: { id: '0c000000-0000-4000-8000-000000000001' } },
      serviceAccounts: {},
    });
  });

  it("takes a group's members (users of any file) with where each is written; a member no file declares is an error at it with the closest name", async () => {
    const people = `directory:\n  groups:\n    platform:\n      id: ${platform.id}\n      publicKey: "${platform.publicKey}"\n      members: [dana, danna]\n`;
    const { desired, diagnostics } = await load(
      {
        'main.yaml': `${BASE}directory:\n  users:\n    dana: { id: ${dana.id}, publicKey: "${dana.publicKey}" }\n`,
        'people.yaml': people,
      },
      env,
    );
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'unknown_directory_name',
        'Unknown user "danna": it is not declared in directory.users; did you mean "dana"?',
        { file: 'people.yaml', line: 6, col: 23 },
      ],
    ]);
    expect(desired).toBeUndefined();
    const ok = await load(
      {
        'main.yaml': `${BASE}directory:\n  users:\n    dana: { id: ${dana.id}, publicKey: "${dana.publicKey}" }\n`,
        'people.yaml': people.replace(', danna', ''),
      },
      env,
    );
    expect(ok.diagnostics).toEqual([]);
    expect(ok.desired?.directory?.groups.platform?.members).toEqual([{ user: 'dana', source: { file: 'people.yaml', line: 6, col: 17 } }]);
  });

  it('refuses a public key that is not base64 of 32 bytes, at the key, without quoting it', async () => {
    const short = Buffer.alloc(16, 7).toString('base64');
    const { diagnostics } = await load(
      { 'main.yaml': `${BASE}directory:\n  users:\n    dana:\n      id: ${dana.id}\n      publicKey: "${short}"\n` },
      env,
    );
    const lines = BASE.split('\n').length - 1;
    expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [
        'invalid_public_key',
        'The publicKey of user "dana" decodes to 16 bytes, not 32: it must be base64 of an X25519 public key of exactly 32 bytes',
        { file: 'main.yaml', line: lines + 5, col: 18 },
      ],
    ]);
    const notBase64 = await load(
      { 'main.yaml': `${BASE}directory:\n  groups:\n    platform: { id: ${platform.id}, publicKey: "not a key!" }\n` },
      env,
    );
    expect(notBase64.diagnostics.map((d) => [d.code, d.summary])).toEqual([
      [
        'invalid_public_key',
        'The publicKey of group "platform" is not base64: it must be base64 of an X25519 public key of exactly 32 bytes',
      ],
    ]);
  });

  it('refuses a name declared twice, naming the first place', async () => {
    const { diagnostics } = await load(
      {
        'a.yaml': `${BASE}directory:\n  users:\n    dana: { id: ${dana.id}, publicKey: "${dana.publicKey}" }\n`,
        'b.yaml': `directory:\n  users:\n    dana: { id: ${dana.id}, publicKey: "${dana.publicKey}" }\n`,
      },
      env,
    );
    const lines = BASE.split('\n').length - 1;
    expect(diagnostics.map((d) => [d.code, d.summary, d.range?.file])).toEqual([
      [
        'duplicate_directory_entry',
        `The user "dana" is declared twice in directory.users: in a.yaml:${lines + 3}:5 and again here`,
        'b.yaml',
      ],
    ]);
  });

  it('checks the shape with the schema: a missing public key, an unknown section', async () => {
    const { diagnostics } = await load({ 'main.yaml': `${BASE}directory:\n  users:\n    dana: { id: ${dana.id} }\n  people: {}\n` }, env);
    expect(diagnostics.map((d) => d.code).sort()).toEqual(['missing_key', 'unknown_key']);
  });

  it('takes Service Account key pins with where each is written; a malformed key id or a pin given twice is an error at it', async () => {
    const lines = BASE.split('\n').length - 1;
    const { desired, diagnostics } = await load(
      { 'main.yaml': `${BASE}directory:\n  serviceAccounts:\n    ci-deployer: { keyId: "x25519:1644ab09cd32ef10" }\n` },
      env,
    );
    expect(diagnostics).toEqual([]);
    expect(desired?.directory?.serviceAccounts).toEqual({
      'ci-deployer': { keyId: 'x25519:1644ab09cd32ef10', source: { file: 'main.yaml', line: lines + 3, col: 27 } },
    });

    const bad = await load({ 'main.yaml': `${BASE}directory:\n  serviceAccounts:\n    ci-deployer: { keyId: "1644ab09cd32ef10" }\n` }, env);
    expect(bad.diagnostics.map((d) => [d.code, d.range?.line])).toEqual([['invalid_value', lines + 3]]);

    const twice = await load(
      {
        'a.yaml': `${BASE}directory:\n  serviceAccounts:\n    ci-deployer: { keyId: "x25519:1644ab09cd32ef10" }\n`,
        'b.yaml': `directory:\n  serviceAccounts:\n    ci-deployer: { keyId: "x25519:1644ab09cd32ef10" }\n`,
      },
      env,
    );
    expect(twice.diagnostics.map((d) => [d.code, d.summary, d.range?.file])).toEqual([
      [
        'duplicate_directory_entry',
        `The Service Account "ci-deployer" is pinned twice in directory.serviceAccounts: in a.yaml:${lines + 3}:27 and again here`,
        'b.yaml',
      ],
    ]);
  });
});
