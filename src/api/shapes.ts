/**
 * Wire shapes of the control-plane API, written once as TypeBox schemas so that
 * the same declaration is both the JSON Schema the emulator validates with and
 * the TypeScript type the client returns. Where the spec says "not shown", the
 * choice made here is recorded in docs/api-assumptions.md.
 *
 * Convention (from the spec): request bodies are camelCase; results of objects
 * are snake_case like the gateway token row, except settings documents (gateway
 * settings, OTel export), which read back in the camelCase they are written in.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Uuid = Type.String({ format: 'uuid' });
const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

// ---------------------------------------------------------------- resources

export const Account = Type.Object({ account_id: Uuid, name: Type.String() });

export const Project = Type.Object({
  project_id: Uuid,
  account_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  is_active: Type.Boolean(),
  archived: Type.Boolean(),
  archived_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
});

/** Client-encrypted value: the service stores it and never sees plaintext. */
export const EncryptedValue = Type.Object(
  {
    ciphertext: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    wrapper: Type.Object(
      {
        alg: Type.String({ minLength: 1 }),
        keyId: Type.String({ minLength: 1 }),
        wrappedDek: Type.String({ minLength: 1 }),
        nonce: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const RecordMeta = Type.Object({
  record_id: Uuid,
  account_id: Uuid,
  project_id: Uuid,
  name: Type.String(),
  tags: Type.Array(Type.String()),
  secret_due_at: Nullable(DateTime),
  rotation_interval_days: Nullable(Type.Integer()),
  format: Type.String(),
  owner_user_id: Uuid,
  current_version: Nullable(Type.Integer()),
  archived: Type.Boolean(),
  archived_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
  /**
   * Who holds a grant of the record (ids only, safe metadata), so a grant added or revoked elsewhere shows as
   * drift. The emulator always sends it; optional so that an answer without it still reads.
   */
  grants: Type.Optional(
    Type.Object({
      user_ids: Type.Array(Uuid),
      group_ids: Type.Array(Uuid),
      service_account_ids: Type.Array(Uuid),
    }),
  ),
});

export const RecordRead = Type.Object({
  record_id: Uuid,
  meta: Type.Optional(RecordMeta),
  fields: Type.Optional(
    Nullable(Type.Object({ version: Type.Integer(), ciphertext: Type.String(), wrapper: EncryptedValue.properties.wrapper })),
  ),
});

export const RecordVersion = Type.Object({
  version: Type.Integer(),
  reason: Type.String(),
  created_by: Uuid,
  created_at: DateTime,
});

export const AuditRow = Type.Object({
  audit_id: Uuid,
  record_id: Nullable(Uuid),
  project_id: Uuid,
  action: Type.String(),
  actor_type: Type.String(),
  actor_id: Uuid,
  created_at: DateTime,
});

export const AnomalyRow = Type.Object({
  anomaly_id: Uuid,
  record_id: Uuid,
  kind: Type.String(),
  severity: Type.String(),
  detected_at: DateTime,
});

export const ActivityRow = Type.Object({ record_id: Uuid, action: Type.String(), count: Type.Integer() });

export const AlertRow = Type.Object({
  alert_id: Uuid,
  record_id: Uuid,
  kind: Type.String(),
  created_at: DateTime,
});

export const Provider = Type.Object({
  provider_id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  default_base_url: Type.String(),
  models: Type.Array(Type.String()),
});

export const Credential = Type.Object({
  credential_id: Uuid,
  account_id: Uuid,
  provider_id: Uuid,
  label: Type.String(),
  base_url: Nullable(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  created_at: DateTime,
  updated_at: DateTime,
  rotated_at: Nullable(DateTime),
});

export const Model = Type.Object({ model_id: Type.String(), provider_id: Uuid });

export const GatewaySettings = Type.Object(
  {
    requestsPerMinute: Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    tokensPerMinute: Nullable(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
    spendLimitUsd: Nullable(Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,2})?$' })),
    window: Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day'), Type.Literal('month')]),
    guardrails: Type.Object(
      {
        blockPii: Type.Boolean(),
        blockedTerms: Type.Array(Type.String({ minLength: 1 }), { maxItems: 500 }),
        maxInputTokens: Nullable(Type.Integer({ minimum: 1 })),
      },
      { additionalProperties: false },
    ),
    cache: Type.Object(
      { enabled: Type.Boolean(), ttlSeconds: Type.Integer({ minimum: 0, maximum: 604_800 }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** Body of a settings update: any subset, also inside `guardrails` and `cache` (merged one level deep). */
export const GatewaySettingsPatch = Type.Partial(
  Type.Object(
    {
      ...GatewaySettings.properties,
      guardrails: Type.Partial(GatewaySettings.properties.guardrails, { additionalProperties: false }),
      cache: Type.Partial(GatewaySettings.properties.cache, { additionalProperties: false }),
    },
    { additionalProperties: false },
  ),
  { additionalProperties: false },
);

export const Gateway = Type.Object({
  gateway_id: Uuid,
  account_id: Uuid,
  project_id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  default_provider_id: Uuid,
  default_model: Type.String(),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  credential_ids: Type.Array(Uuid),
  settings: GatewaySettings,
  /** Provider-compatible data-plane base URLs, one per endpoint style. */
  endpoints: Type.Record(Type.String(), Type.String()),
  routing: Type.Object({ state: Type.String() }),
  created_at: DateTime,
  updated_at: DateTime,
  disabled_at: Nullable(DateTime),
});

export const OtelExport = Type.Object({
  enabled: Type.Boolean(),
  endpoint: Nullable(Type.String()),
  exportMetrics: Type.Boolean(),
  exportTraces: Type.Boolean(),
  /** Names of the configured headers; their values are write-only. */
  headerNames: Type.Array(Type.String()),
  updatedAt: Nullable(DateTime),
});

export const GatewayToken = Type.Object({
  token_id: Uuid,
  gateway_id: Uuid,
  name: Type.String(),
  token_prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  principal_type: Type.String(),
  owner_user_id: Nullable(Uuid),
  service_account_id: Nullable(Uuid),
  allowed_models: Type.Array(Type.String()),
  spend_limit: Nullable(Type.String()),
  spend_window: Nullable(Type.String()),
  rate_limit_per_min: Nullable(Type.Integer()),
  created_at: DateTime,
  last_used_at: Nullable(DateTime),
  expires_at: Nullable(DateTime),
  revoked_at: Nullable(DateTime),
});

export const CreatedGatewayToken = Type.Composite([GatewayToken, Type.Object({ plaintext: Type.String() })]);

export const LogEntry = Type.Object({
  log_id: Uuid,
  gateway_id: Uuid,
  project_id: Uuid,
  token_id: Nullable(Uuid),
  provider_id: Uuid,
  credential_id: Uuid,
  model: Type.String(),
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  status_code: Type.Integer(),
  latency_ms: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  cost_usd: Type.String(),
  created_at: DateTime,
});

export const LogDetail = Type.Composite([
  LogEntry,
  Type.Object({ request_body: Type.Optional(Type.Unknown()), response_body: Type.Optional(Type.Unknown()) }),
]);

export const LogBodies = Type.Object({ request_body: Type.Unknown(), response_body: Type.Unknown() });

export const Spend = Type.Object({
  project_id: Uuid,
  since: DateTime,
  total_usd: Type.String(),
  by_gateway: Type.Array(Type.Object({ gateway_id: Uuid, requests: Type.Integer(), cost_usd: Type.String() })),
});

export const MetricsBucket = Type.Object({
  bucket_start: DateTime,
  /** Present when the query groups by it (`groupBy=gateway`, `token`, `model`): the bucket is one row per group. */
  gateway_id: Type.Optional(Uuid),
  /** Null for requests made without a gateway token (the dashboard's playground). */
  token_id: Type.Optional(Nullable(Uuid)),
  model: Type.Optional(Type.String()),
  requests: Type.Integer(),
  errors: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  /** Dollars to the micro-dollar (`"0.001234"`): summed exactly by cplane, so anything else is refused. */
  cost_usd: Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,6})?$' }),
});

export const KeyAccessRow = Type.Object({
  access_id: Uuid,
  outcome: Type.Union([Type.Literal('granted'), Type.Literal('denied'), Type.Literal('failed')]),
  reason: Type.String(),
  provider_id: Uuid,
  credential_id: Uuid,
  token_id: Nullable(Uuid),
  actor_ip: Type.String(),
  actor_user_agent: Type.String(),
  assistant_session_id: Nullable(Type.String()),
  created_at: DateTime,
});

export const KeyAccessPage = Type.Object({ rows: Type.Array(KeyAccessRow), total: Type.Integer() });

export const ServiceAccount = Type.Object({
  service_account_id: Uuid,
  account_id: Uuid,
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
  created_at: DateTime,
  /** The account's cryptographic identity: its X25519 public key (base64 of 32 bytes), to wrap data keys for. */
  public_key: Type.String({ minLength: 44, maxLength: 44 }),
  /** Names that key: `x25519:` and 16 hex digits of its SHA-256 (changes when the identity is rotated). */
  key_id: Type.String({ pattern: '^x25519:[0-9a-f]{16}$' }),
});

const ChangeItem = Type.Object(
  {
    kind: Type.Union([Type.Literal('project'), Type.Literal('record')]),
    resource_id: Uuid,
    user_id: Uuid,
    wrappers_deleted: Type.Integer(),
    project_wrappers_deleted: Type.Integer(),
    rekey_queued: Type.Boolean(),
    material_pending: Type.Object({ project_key: Type.Boolean(), record_key: Type.Boolean() }, { additionalProperties: false }),
    sources_removed: Type.Array(Type.Array(Type.String())),
    sources_added: Type.Array(Type.Array(Type.String())),
    secret_sources_remaining: Type.Array(Type.Record(Type.String(), Type.Unknown())),
    project_sources_remaining: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const GroupMutationResult = Type.Object(
  {
    groupId: Uuid,
    projectId: Type.Optional(Uuid),
    roleId: Type.Optional(Uuid),
    changed: Type.Boolean(),
    wrappersDeleted: Type.Integer(),
    projectWrappersDeleted: Type.Integer(),
    changes: Type.Array(ChangeItem),
  },
  { additionalProperties: false },
);

// ---------------------------------------------------------------- small results

export const ProjectCreated = Type.Object({ project_id: Uuid });
export const RecordCreated = Type.Object({ record_id: Uuid, created: Type.Boolean(), version: Nullable(Type.Integer()) });
export const RecordVersionCreated = Type.Object({ record_id: Uuid, version: Type.Integer() });
export const RecordOwner = Type.Object({ record_id: Uuid, owner_user_id: Uuid });
export const Ok = Type.Object({ ok: Type.Literal(true) });
export const UserGrant = Type.Object({ recordId: Uuid, userId: Uuid });
export const GroupGrant = Type.Object({ recordId: Uuid, groupId: Uuid });
export const ServiceAccountGrant = Type.Object({ recordId: Uuid, serviceAccountId: Uuid });
export const TokenDeleted = Type.Object({ token_id: Uuid, deleted: Type.Literal(true) });

// ---------------------------------------------------------------- request parts

/** Limit and offset, as every list with pagination takes them (see Limits 6). */
export const Page = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
};

export const Body = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties, { additionalProperties: false });
export const Query = Body;

/** A provider secret: accepted at creation or rotation, never returned (JSON Schema `writeOnly`, which cplane's output redaction reads). */
export const Secret = Type.String({ minLength: 1, maxLength: 8192, writeOnly: true });
export { Uuid, DateTime, Nullable };

export type AccountT = Static<typeof Account>;
export type ProjectT = Static<typeof Project>;
export type RecordMetaT = Static<typeof RecordMeta>;
export type EncryptedValueT = Static<typeof EncryptedValue>;
export type ProviderT = Static<typeof Provider>;
export type CredentialT = Static<typeof Credential>;
export type GatewayT = Static<typeof Gateway>;
export type GatewaySettingsT = Static<typeof GatewaySettings>;
export type OtelExportT = Static<typeof OtelExport>;
export type GatewayTokenT = Static<typeof GatewayToken>;
export type LogEntryT = Static<typeof LogEntry>;
export type MetricsBucketT = Static<typeof MetricsBucket>;
export type ModelT = Static<typeof Model>;
export type KeyAccessRowT = Static<typeof KeyAccessRow>;
export type ServiceAccountT = Static<typeof ServiceAccount>;
export type GroupMutationResultT = Static<typeof GroupMutationResult>;
