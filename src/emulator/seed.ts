/**
 * Builds the initial database from the fixtures: identities, seeded projects,
 * records with versions and audit rows, credentials, gateways with tokens, and
 * a week of simulated traffic. Timestamps are relative to the emulator clock;
 * ids are fixed (fixtures) or drawn from the seeded generator.
 */
import { extraAccountFixtures, fixtures } from './fixtures.js';
import { KEYLESS_USER_IDS, publicKeyFields } from './keys.js';
import { defaultGatewaySettings, defaultOtel, fingerprint, gatewayEndpoints } from './defaults.js';
import type { Prng } from './prng.js';
import type { Db, RecordRow } from './store.js';
import { simulateTraffic } from './traffic.js';

const DAY = 86_400_000;

export function seedDatabase(now: Date, rng: Prng): Db {
  const at = (msAgo: number) => new Date(now.getTime() - msAgo).toISOString();
  const created = at(30 * DAY);
  const db: Db = {
    version: 1,
    ...identityTables(created),
    pats: [],
    saTokens: [],
    ...projectTables(at, created),
    records: [],
    audit: [],
    anomalies: [],
    alerts: [],
    ...providerTables(created),
    gateways: [],
    tokens: [],
    logs: [],
    keyAccess: [],
  };
  // The order of the steps is the order the seeded generator is drawn from: the ids stay the same.
  seedApiTokens(db);
  seedRecords(db, rng, at, created);
  seedGateways(db, created);
  seedTraffic(db, rng, now);
  return db;
}

type Ago = (msAgo: number) => string;

/** Accounts, users and their memberships, roles, groups and Service Accounts, from the fixtures. */
function identityTables(
  created: string,
): Pick<Db, 'accounts' | 'users' | 'memberships' | 'roles' | 'groups' | 'groupProjectRoles' | 'serviceAccounts'> {
  return {
    accounts: fixtures.accounts.map((a) => ({ account_id: a.id, name: a.name })),
    users: fixtures.users.map((u) => ({
      user_id: u.id,
      name: u.name,
      email: u.email,
      public_key: KEYLESS_USER_IDS.includes(u.id) ? null : publicKeyFields(u.id).public_key,
    })),
    memberships: fixtures.users.flatMap((u) => u.memberships.map((m) => ({ account_id: m.accountId, user_id: u.id, role_id: m.roleId }))),
    roles: fixtures.roles.map((r) => ({ role_id: r.id, name: r.name, permissions: [...r.permissions] })),
    groups: fixtures.groups.map((g) => ({
      group_id: g.id,
      account_id: g.accountId,
      name: g.name,
      member_ids: [...g.memberIds],
      public_key: publicKeyFields(g.id).public_key,
    })),
    groupProjectRoles: [],
    serviceAccounts: fixtures.serviceAccounts.map((s) => ({
      service_account_id: s.id,
      account_id: s.accountId,
      name: s.name,
      status: s.status,
      created_at: created,
      role_id: s.roleId,
      ...publicKeyFields(s.id),
    })),
  };
}

function projectTables(at: Ago, created: string): Pick<Db, 'projects'> {
  return {
    projects: fixtures.projects.map((p) => ({
      project_id: p.id,
      account_id: p.accountId,
      name: p.name,
      description: p.description,
      is_active: !p.archived,
      archived: p.archived,
      archived_at: p.archived ? at(10 * DAY) : null,
      created_at: created,
      updated_at: created,
    })),
  };
}

/** The AI providers and the seeded provider credentials. */
function providerTables(created: string): Pick<Db, 'providers' | 'credentials'> {
  return {
    providers: fixtures.providers.map((p) => ({
      provider_id: p.id,
      name: p.name,
      display_name: p.displayName,
      default_base_url: p.defaultBaseUrl,
      models: [...p.models],
    })),
    credentials: fixtures.credentials.map((c) => ({
      credential_id: c.id,
      account_id: c.accountId,
      provider_id: c.providerId,
      label: c.label,
      base_url: null,
      status: 'active' as const,
      created_at: created,
      updated_at: created,
      rotated_at: null,
      secret_fingerprint: fingerprint(`seeded-${c.id}`),
    })),
  };
}

/** The fixtures' API tokens: PATs of users and Service Account tokens. */
function seedApiTokens(db: Db): void {
  for (const [name, token] of Object.entries(fixtures.tokens)) {
    const owner = fixtures.tokenOwners[name as keyof typeof fixtures.tokenOwners];
    if ('userId' in owner) db.pats.push({ token, user_id: owner.userId, expires_at: owner.expiresAt });
    else db.saTokens.push({ token, service_account_id: owner.serviceAccountId });
  }
}

/** Records with their versions, audit rows (a few reads today), anomalies and alerts. */
function seedRecords(db: Db, rng: Prng, at: Ago, created: string): void {
  for (const r of fixtures.records) {
    const record: RecordRow = {
      record_id: r.id,
      account_id: r.accountId,
      project_id: r.projectId,
      name: r.name,
      tags: ['seeded'],
      secret_due_at: null,
      rotation_interval_days: 90,
      format: 'text',
      owner_user_id: r.ownerId,
      current_version: r.versions,
      archived: false,
      archived_at: null,
      created_at: created,
      updated_at: at(2 * DAY),
      versions: [],
      user_grants: {},
      group_grants: {},
      service_account_grants: {},
    };
    for (let v = 1; v <= r.versions; v++) {
      record.versions.push({
        version: v,
        reason: v === 1 ? 'create' : 'rotate',
        created_by: r.ownerId,
        created_at: at((r.versions - v + 1) * 2 * DAY),
        ciphertext: Buffer.from(`seeded ciphertext ${r.id} v${v}`).toString('base64'),
        wrapper: {
          alg: 'xchacha20poly1305',
          keyId: `user:${r.ownerId}`,
          wrappedDek: Buffer.from(`seeded dek ${r.id} v${v}`).toString('base64'),
        },
      });
      db.audit.push({
        audit_id: rng.uuid(),
        account_id: r.accountId,
        record_id: r.id,
        project_id: r.projectId,
        action: v === 1 ? 'create' : 'rotate',
        actor_type: 'user',
        actor_id: r.ownerId,
        created_at: record.versions[v - 1]!.created_at,
      });
    }
    // A few reads today, so the activity and access feeds have rows for the current day.
    const sa = fixtures.serviceAccounts.find((s) => s.accountId === r.accountId && s.status === 'active');
    for (let i = 0; i < 3; i++) {
      db.audit.push({
        audit_id: rng.uuid(),
        account_id: r.accountId,
        record_id: r.id,
        project_id: r.projectId,
        action: 'read',
        actor_type: sa && i === 2 ? 'service_account' : 'user',
        actor_id: sa && i === 2 ? sa.id : r.ownerId,
        created_at: at(rng.int(1, 30) * 60_000),
      });
    }
    db.records.push(record);
    flagRecord(db, rng, at, r);
  }
  db.audit.sort((a, b) => a.created_at.localeCompare(b.created_at));
  db.anomalies.sort((a, b) => a.detected_at.localeCompare(b.detected_at));
  db.alerts.sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** An anomaly and an alert on a seeded record, so the audit feeds have rows. */
function flagRecord(db: Db, rng: Prng, at: Ago, r: (typeof fixtures.records)[number]): void {
  db.anomalies.push({
    anomaly_id: rng.uuid(),
    account_id: r.accountId,
    project_id: r.projectId,
    record_id: r.id,
    kind: rng.pick(['unusual_read_volume', 'read_outside_business_hours', 'new_client_location']),
    severity: rng.pick(['low', 'medium', 'high']),
    detected_at: at(rng.int(1, 72) * 3_600_000),
  });
  db.alerts.push({
    alert_id: rng.uuid(),
    account_id: r.accountId,
    project_id: r.projectId,
    record_id: r.id,
    kind: rng.pick(['secret_due', 'rotation_overdue', 'access_spike']),
    created_at: at(rng.int(1, 48) * 3_600_000),
  });
}

/** Gateways and their tokens. */
function seedGateways(db: Db, created: string): void {
  for (const g of fixtures.gateways) {
    db.gateways.push({
      gateway_id: g.id,
      account_id: g.accountId,
      project_id: g.projectId,
      name: g.name,
      slug: g.slug,
      default_provider_id: g.providerId,
      default_model: g.model,
      status: 'enabled',
      credential_ids: [...g.credentialIds],
      settings: defaultGatewaySettings(),
      endpoints: gatewayEndpoints(g.slug),
      routing: { state: 'ready' },
      created_at: created,
      updated_at: created,
      disabled_at: null,
      otel: defaultOtel(),
    });
  }
  for (const t of fixtures.gatewayTokens) {
    const plaintext = `gwt_seeded_${t.id.replace(/-/g, '')}`;
    db.tokens.push({
      token_id: t.id,
      gateway_id: t.gatewayId,
      account_id: t.accountId,
      name: t.name,
      token_prefix: plaintext.slice(0, 8),
      scopes: ['run'],
      principal_type: 'user',
      owner_user_id: t.ownerId,
      service_account_id: null,
      allowed_models: [],
      spend_limit: null,
      spend_window: null,
      rate_limit_per_min: 600,
      created_at: created,
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      token_hash: fingerprint(plaintext),
    });
  }
}

/** A week of simulated traffic per gateway. */
function seedTraffic(db: Db, rng: Prng, now: Date): void {
  for (const gateway of db.gateways) {
    const tokenIds = db.tokens.filter((t) => t.gateway_id === gateway.gateway_id).map((t) => t.token_id);
    simulateTraffic(db, gateway, rng, {
      count: gateway.account_id === fixtures.accounts[0]!.id ? 120 : 40,
      end: now,
      spanMs: 7 * DAY,
      tokenIds,
    });
  }
  // Lists page in creation order: interleave the gateways' traffic by time.
  db.logs.sort((a, b) => a.created_at.localeCompare(b.created_at));
  db.keyAccess.sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/**
 * An empty account of the given id, with the admin user (fixtures.tokens.admin) as its admin: what
 * `cplane test` adds when a configuration names an account the fixtures do not have.
 */
export function addEmptyAccount(db: Db, id: string, name: string): void {
  if (db.accounts.some((a) => a.account_id === id)) return;
  const admin = fixtures.users[0]!;
  const adminRole = fixtures.roles.find((r) => r.name === 'admin')!;
  db.accounts.push({ account_id: id, name });
  db.memberships.push({ account_id: id, user_id: admin.id, role_id: adminRole.id });
}

/**
 * Adds `count` extra accounts (fixtures.ts `extraAccount`): Ada their admin and Dana a reader, each with the group
 * `team` and the active Service Account `deployer` (and its token). An account the database already has (a data
 * file saved with them) is left as it is.
 */
export function addExtraAccounts(db: Db, count: number, now: Date): void {
  const extra = extraAccountFixtures(count);
  for (const account of extra.accounts) {
    if (db.accounts.some((a) => a.account_id === account.id)) continue;
    const mine = <T extends { accountId: string }>(rows: T[]) => rows.filter((r) => r.accountId === account.id);
    db.accounts.push({ account_id: account.id, name: account.name });
    for (const m of mine(extra.memberships)) db.memberships.push({ account_id: m.accountId, user_id: m.userId, role_id: m.roleId });
    for (const g of mine(extra.groups))
      db.groups.push({
        group_id: g.id,
        account_id: g.accountId,
        name: g.name,
        member_ids: [...g.memberIds],
        public_key: publicKeyFields(g.id).public_key,
      });
    for (const s of mine(extra.serviceAccounts)) {
      db.serviceAccounts.push({
        service_account_id: s.id,
        account_id: s.accountId,
        name: s.name,
        status: s.status,
        created_at: now.toISOString(),
        role_id: s.roleId,
        ...publicKeyFields(s.id),
      });
      for (const t of extra.tokens.filter((t) => t.serviceAccountId === s.id))
        db.saTokens.push({ token: t.token, service_account_id: s.id });
    }
  }
}
