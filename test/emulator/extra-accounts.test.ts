// `startEmulator({ accounts: N })` adds N accounts with Ada as admin, Dana as reader (people belong to several
// accounts), a group `team` and an active Service Account `deployer` each; a fault spec with `accounts` fails the
// requests of those accounts only.
import { expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { extraAccount, fixtures } from '../../src/emulator/index.js';
import { withEmulator } from '../helpers/emulator.js';

const emulator = withEmulator({ accounts: 2 });

test('the extra accounts: Tenant 1 and 2, with Ada as their admin', async () => {
  const client = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: extraAccount(2).id });
  const accounts = await client.call('listAccounts', {});
  expect(accounts.map((a) => a.name)).toEqual(expect.arrayContaining(['Tenant 1', 'Tenant 2']));
  expect(accounts.some((a) => a.name === 'Tenant 3')).toBe(false);
  expect(extraAccount(2).id).toBe('0a000000-0000-4000-8000-000000001002');
  await client.call('createProject', { body: { accountId: extraAccount(2).id, name: 'app', description: 'App' } });
  expect((await client.call('listProjects', {})).map((p) => p.name)).toEqual(['app']);
  await client.close();
  // Gus (admin of Globex only) is not a member.
  const gus = createClient({
    baseUrl: emulator().url,
    token: fixtures.tokens.otherAccountAdmin,
    accountId: extraAccount(1).id,
    retry: { maxAttempts: 1 },
  });
  await expect(gus.call('listProjects', {})).rejects.toThrow(/not_account_member/);
  await gus.close();
});

test('each extra account has an active Service Account with its own token, and Dana is a member of every one', async () => {
  for (const n of [1, 2]) {
    const extra = extraAccount(n);
    const bot = createClient({ baseUrl: emulator().url, token: extra.serviceAccountToken, accountId: extra.id, retry: { maxAttempts: 1 } });
    expect(await bot.call('listRecords', {})).toEqual([]);
    await bot.close();
    const admin = createClient({ baseUrl: emulator().url, token: fixtures.tokens.admin, accountId: extra.id });
    expect((await admin.call('listServiceAccounts', { query: { accountId: extra.id } })).map((s) => [s.name, s.status])).toEqual([
      ['deployer', 'active'],
    ]);
    await admin.close();
    const dana = createClient({
      baseUrl: emulator().url,
      token: fixtures.tokens.recordOwner,
      accountId: extra.id,
      retry: { maxAttempts: 1 },
    });
    expect(await dana.call('listProjects', {})).toEqual(n === 2 ? [expect.objectContaining({ name: 'app' })] : []);
    await dana.close();
  }
  // One account's Service Account is refused in another.
  const stray = createClient({
    baseUrl: emulator().url,
    token: extraAccount(1).serviceAccountToken,
    accountId: extraAccount(2).id,
    retry: { maxAttempts: 1 },
  });
  await expect(stray.call('listRecords', {})).rejects.toThrow(/403|not_account_member|account/);
  await stray.close();
});

test('faults limited to one account fail its requests only', async () => {
  emulator().setFaults({ status: { 500: 1 }, accounts: [extraAccount(1).id] });
  try {
    const failing = createClient({
      baseUrl: emulator().url,
      token: fixtures.tokens.admin,
      accountId: extraAccount(1).id,
      retry: { maxAttempts: 1 },
    });
    const fine = createClient({
      baseUrl: emulator().url,
      token: fixtures.tokens.admin,
      accountId: extraAccount(2).id,
      retry: { maxAttempts: 1 },
    });
    await expect(failing.call('listProjects', {})).rejects.toThrow(/500/);
    expect((await fine.call('listProjects', {})).map((p) => p.name)).toEqual(['app']);
    await Promise.all([failing.close(), fine.close()]);
  } finally {
    emulator().setFaults(undefined);
  }
});
