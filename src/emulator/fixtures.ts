/**
 * The seeded identities and objects of the emulator: fixed UUIDs and tokens,
 * the same on every run, printed by `cplane emulator --print-fixtures`.
 * Account 1 and 2 have the admin user as a member; account 3 does not.
 */
import { operations } from '../api/operations.js';
import { KEYLESS_USER_IDS, printableKeyPair } from './keys.js';

const id = (kind: string, n: number) => `${kind}000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const allPermissions: string[] = [...new Set(Object.values(operations).map((op) => op.permission))].sort();
/** Read-only: every `*:read*` permission except reading stored request bodies. */
export const readerPermissions = allPermissions.filter((p) => /:read(-|$)/.test(p) && p !== 'usage:read-bodies');
/** What the seeded Service Accounts may do: the Service Account operations only. */
export const serviceAccountPermissions = Object.values(operations)
  .filter((op) => op.identity === 'SA')
  .map((op) => op.permission)
  .filter((p, i, all) => all.indexOf(p) === i)
  .sort();

const accounts = [
  { id: id('0a', 1), name: 'Acme Production' },
  { id: id('0a', 2), name: 'Acme Staging' },
  { id: id('0a', 3), name: 'Globex' },
];
const [acme, staging, globex] = accounts.map((a) => a.id) as [string, string, string];

const roles = [
  { id: id('0c', 1), name: 'admin', permissions: allPermissions },
  { id: id('0c', 2), name: 'reader', permissions: readerPermissions },
  { id: id('0c', 3), name: 'service-account', permissions: serviceAccountPermissions },
];
const [adminRole, readerRole, saRole] = roles.map((r) => r.id) as [string, string, string];

const users = [
  {
    id: id('0b', 1),
    name: 'Ada Admin',
    email: 'ada@acme.example',
    memberships: [
      { accountId: acme, roleId: adminRole },
      { accountId: staging, roleId: adminRole },
    ],
  },
  { id: id('0b', 2), name: 'Rex Reader', email: 'rex@acme.example', memberships: [{ accountId: acme, roleId: readerRole }] },
  { id: id('0b', 3), name: 'Dana Developer', email: 'dana@acme.example', memberships: [{ accountId: acme, roleId: readerRole }] },
  { id: id('0b', 4), name: 'Gus Globex', email: 'gus@globex.example', memberships: [{ accountId: globex, roleId: adminRole }] },
];
const [ada, rex, dana, gus] = users.map((u) => u.id) as [string, string, string, string];

const groups = [
  { id: id('0d', 1), accountId: acme, name: 'platform', memberIds: [ada, dana] },
  { id: id('0d', 2), accountId: acme, name: 'auditors', memberIds: [rex] },
  { id: id('0d', 3), accountId: staging, name: 'data', memberIds: [ada] },
  { id: id('0d', 4), accountId: globex, name: 'ops', memberIds: [gus] },
];

/**
 * The `n`th (1-based) of the extra accounts `startEmulator({ accounts: N })` adds for fleets (deployments) and benches
 * of many accounts: `Tenant n`, with Ada as admin and Dana as reader (people belong to several accounts), one group
 * `team` (both members) and one active Service Account `deployer` with its token.
 */
export const extraAccount = (n: number) => ({
  id: id('0a', 1000 + n),
  name: `Tenant ${n}`,
  teamGroupId: id('0d', 1000 + n),
  serviceAccountId: id('0e', 1000 + n),
  /** The bearer token of its Service Account `deployer`: a public test value, as the fixtures' tokens are. */
  serviceAccountToken: `sk-svc-sa-emulator-deployer-tenant-${n}`,
});

/** The first `count` extra accounts as rows of the fixtures' lists: what the database is seeded with and what is printed. */
export function extraAccountFixtures(count: number) {
  const extras = Array.from({ length: count }, (_, i) => extraAccount(i + 1));
  return {
    accounts: extras.map((e) => ({ id: e.id, name: e.name })),
    memberships: extras.flatMap((e) => [
      { userId: ada, accountId: e.id, roleId: adminRole },
      { userId: dana, accountId: e.id, roleId: readerRole },
    ]),
    groups: extras.map((e) => ({ id: e.teamGroupId, accountId: e.id, name: 'team', memberIds: [ada, dana] })),
    serviceAccounts: extras.map((e) => ({
      id: e.serviceAccountId,
      accountId: e.id,
      name: 'deployer',
      status: 'active' as const,
      roleId: saRole,
    })),
    tokens: extras.map((e) => ({ token: e.serviceAccountToken, serviceAccountId: e.serviceAccountId })),
  };
}

const serviceAccounts = [
  { id: id('0e', 1), accountId: acme, name: 'ci-deployer', status: 'active' as const, roleId: saRole },
  { id: id('0e', 2), accountId: acme, name: 'legacy-bot', status: 'inactive' as const, roleId: saRole },
  { id: id('0e', 3), accountId: globex, name: 'globex-bot', status: 'active' as const, roleId: saRole },
];

const providers = [
  {
    id: id('0f', 1),
    name: 'openai',
    displayName: 'OpenAI',
    defaultBaseUrl: 'https://api.openai.com/v1',
    models: [
      'gpt-4o',
      'gpt-4o-mini',
      'o3-mini',
      'gpt-4.1',
      'gpt-4.1-mini',
      'gpt-4.1-nano',
      'o3',
      'o4-mini',
      'text-embedding-3-small',
      'text-embedding-3-large',
    ],
  },
  {
    id: id('0f', 2),
    name: 'anthropic',
    displayName: 'Anthropic',
    defaultBaseUrl: 'https://api.anthropic.com',
    models: [
      'claude-sonnet-4',
      'claude-3-5-haiku',
      'claude-opus-4-1',
      'claude-opus-4',
      'claude-sonnet-4-5',
      'claude-3-7-sonnet',
      'claude-haiku-4-5',
    ],
  },
  {
    id: id('0f', 3),
    name: 'mistral',
    displayName: 'Mistral AI',
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    models: ['mistral-large', 'mistral-small', 'mistral-medium', 'codestral', 'mistral-embed'],
  },
];
const [openai, anthropic, mistral] = providers.map((p) => p.id) as [string, string, string];

/** Seeded objects (created at emulator start with these ids). */
const projects = [
  { id: id('1a', 1), accountId: acme, name: 'payments', description: 'Payment services', archived: false },
  { id: id('1a', 2), accountId: acme, name: 'legacy-billing', description: 'Old billing stack', archived: true },
  { id: id('1a', 3), accountId: staging, name: 'analytics', description: 'Analytics sandbox', archived: false },
  { id: id('1a', 4), accountId: globex, name: 'internal', description: 'Globex internal tools', archived: false },
];
const records = [
  { id: id('1b', 1), accountId: acme, projectId: id('1a', 1), name: 'database-password', ownerId: ada, versions: 2 },
  { id: id('1b', 2), accountId: acme, projectId: id('1a', 1), name: 'stripe-api-key', ownerId: dana, versions: 1 },
  { id: id('1b', 3), accountId: staging, projectId: id('1a', 3), name: 'warehouse-dsn', ownerId: ada, versions: 1 },
  { id: id('1b', 4), accountId: globex, projectId: id('1a', 4), name: 'vpn-psk', ownerId: gus, versions: 1 },
];
const credentials = [
  { id: id('1c', 1), accountId: acme, providerId: openai, label: 'openai-prod' },
  { id: id('1c', 2), accountId: acme, providerId: anthropic, label: 'anthropic-prod' },
  { id: id('1c', 3), accountId: staging, providerId: mistral, label: 'mistral-staging' },
  { id: id('1c', 4), accountId: globex, providerId: openai, label: 'globex-openai' },
];
const gateways = [
  {
    id: id('1d', 1),
    accountId: acme,
    projectId: id('1a', 1),
    name: 'Payments gateway',
    slug: 'payments',
    providerId: openai,
    model: 'gpt-4o-mini',
    credentialIds: [id('1c', 1), id('1c', 2)],
  },
  {
    id: id('1d', 2),
    accountId: staging,
    projectId: id('1a', 3),
    name: 'Analytics gateway',
    slug: 'analytics',
    providerId: mistral,
    model: 'mistral-small',
    credentialIds: [id('1c', 3)],
  },
  {
    id: id('1d', 3),
    accountId: globex,
    projectId: id('1a', 4),
    name: 'Globex gateway',
    slug: 'globex',
    providerId: openai,
    model: 'gpt-4o',
    credentialIds: [id('1c', 4)],
  },
];
const gatewayTokens = [
  { id: id('1e', 1), gatewayId: id('1d', 1), accountId: acme, name: 'checkout-service', ownerId: ada },
  { id: id('1e', 2), gatewayId: id('1d', 1), accountId: acme, name: 'batch-jobs', ownerId: ada },
  { id: id('1e', 3), gatewayId: id('1d', 2), accountId: staging, name: 'notebooks', ownerId: ada },
  { id: id('1e', 4), gatewayId: id('1d', 3), accountId: globex, name: 'globex-app', ownerId: gus },
];

export const fixtures = {
  accounts,
  users,
  groups,
  roles,
  serviceAccounts,
  providers,
  projects,
  records,
  credentials,
  gateways,
  gatewayTokens,
  /** Bearer tokens: public test values of the emulator, not secrets. */
  tokens: {
    admin: 'sk-svc-pat-emulator-admin-ada-0001',
    reader: 'sk-svc-pat-emulator-reader-rex-0002',
    serviceAccount: 'sk-svc-sa-emulator-ci-deployer-0001',
    inactiveServiceAccount: 'sk-svc-sa-emulator-legacy-bot-0002',
    expired: 'sk-svc-pat-emulator-expired-ada-0003',
    /** Gus, admin of account 3 only. */
    otherAccountAdmin: 'sk-svc-pat-emulator-admin-gus-0004',
    /** Dana, a reader in account 1 who owns the `stripe-api-key` record. */
    recordOwner: 'sk-svc-pat-emulator-owner-dana-0005',
    /** The active Service Account of account 3. */
    otherAccountServiceAccount: 'sk-svc-sa-emulator-globex-bot-0003',
  },
  /** Token -> who it is: used to seed the database. */
  tokenOwners: {
    admin: { userId: ada, expiresAt: null },
    reader: { userId: rex, expiresAt: null },
    expired: { userId: ada, expiresAt: '2020-01-01T00:00:00.000Z' },
    otherAccountAdmin: { userId: gus, expiresAt: null },
    recordOwner: { userId: dana, expiresAt: null },
    serviceAccount: { serviceAccountId: id('0e', 1) },
    inactiveServiceAccount: { serviceAccountId: id('0e', 2) },
    otherAccountServiceAccount: { serviceAccountId: id('0e', 3) },
  },
};

export type Fixtures = typeof fixtures;

const TEST_KEY_NOTE = 'Test values of the emulator, public by design: never use these keys for anything real.';

/**
 * The fixtures of every account an emulator with `accounts` extra accounts serves (what `--print-fixtures` shows):
 * the extra accounts' rows appended to the lists, their members' memberships to the users, their Service Accounts'
 * tokens to `tokens` (`tenant1ServiceAccount`, ...).
 */
export function servedFixtures(accounts = 0) {
  const extra = extraAccountFixtures(accounts);
  return {
    ...fixtures,
    accounts: [...fixtures.accounts, ...extra.accounts],
    users: fixtures.users.map((u) => ({
      ...u,
      memberships: [
        ...u.memberships,
        ...extra.memberships.filter((m) => m.userId === u.id).map(({ accountId, roleId }) => ({ accountId, roleId })),
      ],
    })),
    groups: [...fixtures.groups, ...extra.groups],
    serviceAccounts: [...fixtures.serviceAccounts, ...extra.serviceAccounts],
    tokens: { ...fixtures.tokens, ...Object.fromEntries(extra.tokens.map((t, i) => [`tenant${i + 1}ServiceAccount`, t.token])) } as Record<
      string,
      string
    >,
    tokenOwners: {
      ...fixtures.tokenOwners,
      ...Object.fromEntries(extra.tokens.map((t, i) => [`tenant${i + 1}ServiceAccount`, { serviceAccountId: t.serviceAccountId }])),
    } as Record<string, { userId: string; expiresAt: string | null } | { serviceAccountId: string }>,
  };
}

/** What `--print-fixtures` shows: readers' key pairs (test values) beside the Service Accounts, users and groups. */
export function printableFixtures(accounts = 0) {
  const { tokenOwners: _owners, ...rest } = servedFixtures(accounts);
  const withKeys = <T extends { id: string }>(row: T) => ({ ...row, ...printableKeyPair(row.id), privateKeyIsTestValue: true });
  return {
    ...rest,
    readerKeysNote: TEST_KEY_NOTE,
    serviceAccounts: rest.serviceAccounts.map(withKeys),
    users: rest.users.map((u) => (KEYLESS_USER_IDS.includes(u.id) ? { ...u, publicKey: null } : withKeys(u))),
    groups: rest.groups.map(withKeys),
  };
}
