// Readers' key pairs of the fixtures: `cplane emulator --print-fixtures` prints each Service Account's, user's and
// group's private key beside its public key, marked as test values; they are the same on every run, the private
// key is the one of the public key, and the public key is the one GET /service-accounts lists.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { publicKeyOf } from '@cplane/sdk/internal/hpke';
import { loadDatabase } from '../../src/emulator/persistence.js';
import { seedDatabase } from '../../src/emulator/seed.js';
import { createPrng } from '../../src/emulator/prng.js';
import { fixtures, withEmulator } from '../helpers/emulator.js';
import { runInProcess } from '../helpers/in-process-cli.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'cplane.js');
const emulator = withEmulator();
const acme = fixtures.accounts[0]!.id;
let admin: ApiClient;
beforeAll(() => {
  admin = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
});
afterAll(() => admin.close());

interface Printed {
  readerKeysNote: string;
  serviceAccounts: { id: string; name: string; publicKey: string; privateKey: string; keyId: string; privateKeyIsTestValue: boolean }[];
  users: { id: string; name: string; publicKey: string | null; privateKey?: string }[];
  groups: { id: string; name: string; publicKey: string; privateKey: string }[];
}

/** `cplane emulator --print-fixtures` as a process of its own: "the same on every run" means across processes. */
const printFixtures = (): Printed =>
  JSON.parse(spawnSync(process.execPath, [bin, 'emulator', '--print-fixtures'], { encoding: 'utf8' }).stdout) as Printed;
/** The same command in-process, where only what it prints matters. */
const printFixturesInProcess = async (): Promise<Printed> =>
  JSON.parse((await runInProcess(['emulator', '--print-fixtures'], process.env, process.cwd())).stdout) as Printed;

describe("fixture readers' keys", () => {
  it('prints each private key beside its public key, marked as test values, the same on every run', () => {
    const printed = printFixtures();
    expect(printed.readerKeysNote).toMatch(/^Test values of the emulator, public by design/);
    expect(printFixtures()).toEqual(printed);
    for (const reader of [...printed.serviceAccounts, ...printed.groups, ...printed.users.filter((u) => u.publicKey !== null)]) {
      const privateKey = Buffer.from(reader.privateKey!, 'base64');
      expect(privateKey).toHaveLength(32);
      expect(Buffer.from(publicKeyOf(privateKey)).toString('base64')).toBe(reader.publicKey);
    }
    expect(printed.serviceAccounts.every((s) => s.privateKeyIsTestValue)).toBe(true);
    // Rex has not set up a key: shares to him are refused (recipient_public_key_not_found).
    expect(printed.users.find((u) => u.name === 'Rex Reader')).toMatchObject({ publicKey: null });
    expect(printed.users.find((u) => u.name === 'Rex Reader')).not.toHaveProperty('privateKey');
    // Every reader has its own key.
    const keys = [...printed.serviceAccounts, ...printed.groups].map((r) => r.publicKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('lists the same public key and key id for each Service Account over the API (and never a private key)', async () => {
    const printed = await printFixturesInProcess();
    const listed = await admin.call('listServiceAccounts', { query: { accountId: acme } });
    expect(listed.map((s) => s.name).sort()).toEqual(['ci-deployer', 'legacy-bot']);
    for (const sa of listed) {
      const fixture = printed.serviceAccounts.find((s) => s.id === sa.service_account_id)!;
      expect(sa).toMatchObject({ public_key: fixture.publicKey, key_id: fixture.keyId });
      expect(JSON.stringify(sa)).not.toContain(fixture.privateKey);
    }
  });

  it('gives the readers of a data file saved before readers had keys their fixed keys when it is loaded', () => {
    const db = seedDatabase(new Date('2026-01-01T00:00:00Z'), createPrng(1));
    const keys = { sa: db.serviceAccounts[0]!.public_key, user: db.users[0]!.public_key, group: db.groups[0]!.public_key };
    for (const sa of db.serviceAccounts) delete (sa as Partial<typeof sa>).public_key;
    for (const user of db.users) delete (user as Partial<typeof user>).public_key;
    for (const group of db.groups) delete (group as Partial<typeof group>).public_key;
    const temp = mkdtempSync(join(tmpdir(), 'cplane-keys-'));
    try {
      writeFileSync(join(temp, 'data.json'), JSON.stringify(db));
      const loaded = loadDatabase(join(temp, 'data.json'))!;
      expect({ sa: loaded.serviceAccounts[0]!.public_key, user: loaded.users[0]!.public_key, group: loaded.groups[0]!.public_key }).toEqual(
        keys,
      );
      expect(loaded.users.find((u) => u.name === 'Rex Reader')!.public_key).toBeNull();
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
