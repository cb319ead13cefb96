/**
 * The emulator's whole database: one plain JSON-serialisable object, so it can
 * be persisted to a data file as is. Stored rows reuse the wire shapes of
 * src/api/shapes.ts where one exists, plus internal fields (account, hashes)
 * that the `view` functions in the handlers strip before answering.
 */
import type {
  AccountT,
  CredentialT,
  GatewayT,
  GatewayTokenT,
  KeyAccessRowT,
  LogEntryT,
  ProjectT,
  ProviderT,
  RecordMetaT,
  ServiceAccountT,
} from '../api/shapes.js';

/** `public_key`: base64 X25519 key that shares are wrapped for; null for a user who has not set one up. No operation returns it. */
export interface UserRow {
  user_id: string;
  name: string;
  email: string;
  public_key: string | null;
}
export interface MembershipRow {
  account_id: string;
  user_id: string;
  role_id: string;
}
export interface RoleRow {
  role_id: string;
  name: string;
  permissions: string[];
}
export interface GroupRow {
  group_id: string;
  account_id: string;
  name: string;
  member_ids: string[];
  public_key: string;
}
export interface GroupProjectRoleRow {
  group_id: string;
  project_id: string;
  role_id: string;
}
export interface ServiceAccountRow extends ServiceAccountT {
  role_id: string;
}
export interface PatRow {
  token: string;
  user_id: string;
  expires_at: string | null;
}
export interface SaTokenRow {
  token: string;
  service_account_id: string;
}

export interface RecordVersionRow {
  version: number;
  reason: string;
  ciphertext: string;
  wrapper: { alg: string; keyId: string; wrappedDek: string; nonce?: string };
  created_by: string;
  created_at: string;
}
export interface RecordRow extends Omit<RecordMetaT, 'grants'> {
  versions: RecordVersionRow[];
  user_grants: Record<string, string>;
  group_grants: Record<string, string>;
  service_account_grants: Record<string, string>;
}

export interface AuditRowStored {
  audit_id: string;
  account_id: string;
  record_id: string | null;
  project_id: string;
  action: string;
  actor_type: 'user' | 'service_account';
  actor_id: string;
  created_at: string;
}
export interface AnomalyRowStored {
  anomaly_id: string;
  account_id: string;
  project_id: string;
  record_id: string;
  kind: string;
  severity: string;
  detected_at: string;
}
export interface AlertRowStored {
  alert_id: string;
  account_id: string;
  project_id: string;
  record_id: string;
  kind: string;
  created_at: string;
}

export interface CredentialRow extends CredentialT {
  /** sha256 of the provider secret: the secret itself is never kept. */
  secret_fingerprint: string;
}
export interface OtelRow {
  enabled: boolean;
  endpoint: string | null;
  exportMetrics: boolean;
  exportTraces: boolean;
  /** Header name -> sha256 of its value: values are write-only. */
  headers: Record<string, string>;
  updatedAt: string | null;
}
export interface GatewayRow extends GatewayT {
  otel: OtelRow;
}
export interface TokenRow extends GatewayTokenT {
  account_id: string;
  token_hash: string;
}
export interface LogRow extends LogEntryT {
  account_id: string;
  cost_micros: number;
  request_body: unknown;
  response_body: unknown;
}
export interface KeyAccessRowStored extends KeyAccessRowT {
  account_id: string;
  gateway_id: string;
}

export interface Db {
  version: 1;
  accounts: AccountT[];
  users: UserRow[];
  memberships: MembershipRow[];
  roles: RoleRow[];
  groups: GroupRow[];
  groupProjectRoles: GroupProjectRoleRow[];
  serviceAccounts: ServiceAccountRow[];
  pats: PatRow[];
  saTokens: SaTokenRow[];
  projects: ProjectT[];
  records: RecordRow[];
  audit: AuditRowStored[];
  anomalies: AnomalyRowStored[];
  alerts: AlertRowStored[];
  providers: ProviderT[];
  credentials: CredentialRow[];
  gateways: GatewayRow[];
  tokens: TokenRow[];
  logs: LogRow[];
  keyAccess: KeyAccessRowStored[];
  /**
   * Rows of the areas that keep their own table (`tableOf` in handler-call.ts), by table name: a kind added by
   * docs/architecture.md's recipe stores its objects here, typed by its handler, and this file does not change.
   */
  tables?: Record<string, unknown[]>;
  /** The offset of the emulator's clock when the data was saved (clock.ts); absent in files from before it. */
  clockOffsetMs?: number;
}
