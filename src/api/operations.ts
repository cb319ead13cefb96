/**
 * The one declarative table of every API operation: the 59 of the catalogue
 * plus the two group operations. The client builds every request from it, the
 * emulator routes, authenticates, authorises and validates every request with
 * it, and the TypeScript types of parameters and results are inferred from it.
 * Nothing else in the code base knows a path or a body shape.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import * as S from './shapes.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** H: human PAT only. SA: a Service Account token is accepted too. */
export type Identity = 'H' | 'SA';

export interface OperationSpec {
  method: HttpMethod;
  /** Path without the /v1 prefix; `{name}` marks a path parameter. */
  path: string;
  identity: Identity;
  /** Whether the operation works inside one account and so needs `x-account-id`. */
  accountScoped: boolean;
  /** Role permission the emulator checks. */
  permission: string;
  /** Record ownership substitutes for the permission (spec: "or record ownership"). */
  ownerMay?: boolean;
  query?: TSchema;
  body?: TSchema;
  /** Schema of `data` in the success envelope; undefined for `{ok: true}` with no data. */
  result?: TSchema;
  /** How a paginated list pages: `array` (data is the page) or `rows` (data.rows, data.total). */
  pages?: 'array' | 'rows';
  /** Plan-limited creation (spec Limits 5): may fail with `plan_limit_reached`. */
  planLimited?: 'projects' | 'credentials' | 'gateways';
}

const Id = S.Uuid;
const Bool = Type.Boolean();
const Str = Type.String();
const Opt = Type.Optional;
const scope = {
  scopeType: Type.String(),
  scopeId: Opt(Type.String()),
};

export const operations = {
  // ------------------------------------------------------------ accounts
  listAccounts: { method: 'GET', path: '/accounts', identity: 'H', accountScoped: false, permission: 'accounts:read', result: Type.Array(S.Account) },

  // ------------------------------------------------------------ projects
  listProjects: {
    method: 'GET', path: '/projects', identity: 'H', accountScoped: true, permission: 'projects:read',
    query: S.Query({ accountId: Opt(Id), includeArchived: Opt(Bool), ...S.Page }), result: Type.Array(S.Project), pages: 'array',
  },
  getProject: { method: 'GET', path: '/projects/{id}', identity: 'H', accountScoped: true, permission: 'projects:read', result: S.Project },
  createProject: {
    method: 'POST', path: '/projects', identity: 'H', accountScoped: true, permission: 'projects:create', planLimited: 'projects',
    body: S.Body({ accountId: Id, name: Type.String({ minLength: 1, maxLength: 200 }), description: Type.String({ maxLength: 2000 }) }),
    result: S.ProjectCreated,
  },
  updateProject: {
    method: 'PATCH', path: '/projects/{id}', identity: 'H', accountScoped: true, permission: 'projects:update',
    body: S.Body({ name: Type.String({ minLength: 1, maxLength: 200 }), description: Type.String({ maxLength: 2000 }), isActive: Bool }),
    result: S.Project,
  },
  archiveProject: {
    method: 'PATCH', path: '/projects/{id}/archive', identity: 'H', accountScoped: true, permission: 'projects:archive',
    body: S.Body({ archived: Bool }), result: S.Project,
  },

  // ------------------------------------------------------------ records
  listRecords: {
    method: 'GET', path: '/records', identity: 'SA', accountScoped: true, permission: 'records:read',
    query: S.Query({ accountId: Opt(Id), includeArchived: Opt(Bool), ...S.Page }), result: Type.Array(S.RecordMeta), pages: 'array',
  },
  listProjectRecords: {
    method: 'GET', path: '/records/by-project/{projectId}', identity: 'SA', accountScoped: true, permission: 'records:read',
    query: S.Query({ includeArchived: Opt(Bool), ...S.Page }), result: Type.Array(S.RecordMeta), pages: 'array',
  },
  getRecord: { method: 'GET', path: '/records/{id}', identity: 'SA', accountScoped: true, permission: 'records:read', result: S.RecordMeta },
  readRecord: {
    method: 'POST', path: '/records/{id}/read', identity: 'SA', accountScoped: true, permission: 'records:read',
    body: S.Body({
      scope: Type.Array(Type.Union([Type.Literal('meta'), Type.Literal('fields')]), { minItems: 1 }),
      environment: Opt(Str),
    }),
    result: S.RecordRead,
  },
  listRecordVersions: { method: 'GET', path: '/records/{id}/versions', identity: 'H', accountScoped: true, permission: 'records:read', ownerMay: true, result: Type.Array(S.RecordVersion) },
  listRecordAudit: {
    method: 'GET', path: '/records/{id}/audit', identity: 'H', accountScoped: true, permission: 'audit:read', ownerMay: true,
    query: S.Query({ limit: S.Page.limit }), result: Type.Array(S.AuditRow),
  },
  listRecordAnomalies: {
    method: 'GET', path: '/audit/record-anomalies', identity: 'H', accountScoped: true, permission: 'audit:read',
    query: S.Query(scope), result: Type.Array(S.AnomalyRow),
  },
  listRecordActivity: {
    method: 'GET', path: '/audit/record-activity', identity: 'H', accountScoped: true, permission: 'audit:read',
    query: S.Query({ ...scope, day: Opt(Str) }), result: Type.Array(S.ActivityRow),
  },
  listRecordAlerts: {
    method: 'GET', path: '/audit/record-alerts', identity: 'H', accountScoped: true, permission: 'audit:read',
    query: S.Query({ ...scope, ...S.Page }), result: Type.Array(S.AlertRow), pages: 'array',
  },
  listRecordAccess: {
    method: 'GET', path: '/audit/record-access', identity: 'H', accountScoped: true, permission: 'audit:read',
    query: S.Query({ ...scope, actions: Opt(Str), ...S.Page }), result: Type.Array(S.AuditRow), pages: 'array',
  },
  createRecord: {
    method: 'POST', path: '/records', identity: 'H', accountScoped: true, permission: 'records:create',
    body: S.Body({
      projectId: Id,
      name: Type.String({ minLength: 1, maxLength: 200 }),
      format: Opt(Type.String({ minLength: 1, maxLength: 50 })),
      tags: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
      secretDueAt: Opt(S.Nullable(S.DateTime)),
      rotationIntervalDays: Opt(S.Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
      value: Opt(S.EncryptedValue),
    }),
    result: S.RecordCreated,
  },
  createRecordVersion: {
    method: 'POST', path: '/records/{id}/version', identity: 'H', accountScoped: true, permission: 'records:update', ownerMay: true,
    body: S.EncryptedValue, result: S.RecordVersionCreated,
  },
  updateRecord: {
    method: 'PATCH', path: '/records/{id}', identity: 'H', accountScoped: true, permission: 'records:update', ownerMay: true,
    body: S.Body({
      name: Opt(Type.String({ minLength: 1, maxLength: 200 })),
      tags: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
      secretDueAt: Opt(S.Nullable(S.DateTime)),
      rotationIntervalDays: Opt(S.Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
    }),
    result: S.Ok,
  },
  archiveRecord: {
    method: 'PATCH', path: '/records/{id}/archive', identity: 'H', accountScoped: true, permission: 'records:archive', ownerMay: true,
    body: S.Body({ archived: Bool }), result: S.RecordMeta,
  },
  transferRecordOwnership: {
    method: 'POST', path: '/records/{id}/transfer-ownership', identity: 'H', accountScoped: true, permission: 'records:transfer', ownerMay: true,
    body: S.Body({ userId: Id }), result: S.RecordOwner,
  },
  rollbackRecord: {
    method: 'POST', path: '/records/{id}/rollback', identity: 'H', accountScoped: true, permission: 'records:update', ownerMay: true,
    body: S.Body({ version: Type.Integer({ minimum: 1 }) }), result: S.RecordVersionCreated,
  },
  rotateRecord: {
    method: 'POST', path: '/records/{id}/rotate', identity: 'H', accountScoped: true, permission: 'records:rotate', ownerMay: true,
    body: S.EncryptedValue, result: S.RecordVersionCreated,
  },
  shareRecordWithUser: {
    method: 'POST', path: '/records/{id}/share/user', identity: 'H', accountScoped: true, permission: 'records:share', ownerMay: true,
    body: S.Body({ userId: Id, wrappedDek: Type.String({ minLength: 1 }) }), result: S.UserGrant,
  },
  shareRecordWithGroup: {
    method: 'POST', path: '/records/{id}/share/group', identity: 'H', accountScoped: true, permission: 'records:share', ownerMay: true,
    body: S.Body({ groupId: Id, wrappedDek: Type.String({ minLength: 1 }) }), result: S.GroupGrant,
  },
  revokeRecordUser: {
    method: 'POST', path: '/records/{id}/revoke/user', identity: 'H', accountScoped: true, permission: 'records:revoke', ownerMay: true,
    body: S.Body({ userId: Id }), result: S.UserGrant,
  },
  revokeRecordGroup: {
    method: 'POST', path: '/records/{id}/revoke/group', identity: 'H', accountScoped: true, permission: 'records:revoke', ownerMay: true,
    body: S.Body({ groupId: Id }), result: S.GroupGrant,
  },
  revokeRecordServiceAccount: {
    method: 'POST', path: '/records/{id}/revoke/service-account', identity: 'H', accountScoped: true, permission: 'records:revoke-service-account', ownerMay: true,
    body: S.Body({ serviceAccountId: Id }), result: S.ServiceAccountGrant,
  },

  // ------------------------------------------------------------ providers and credentials
  listProviders: { method: 'GET', path: '/providers', identity: 'SA', accountScoped: false, permission: 'providers:read', result: Type.Array(S.Provider) },
  listCredentials: {
    method: 'GET', path: '/provider-credentials', identity: 'H', accountScoped: true, permission: 'credentials:read',
    query: S.Query({ includeRevoked: Opt(Bool), ...S.Page }), result: Type.Array(S.Credential), pages: 'array',
  },
  createCredential: {
    method: 'POST', path: '/provider-credentials', identity: 'H', accountScoped: true, permission: 'credentials:create', planLimited: 'credentials',
    body: S.Body({ providerId: Id, label: Type.String({ minLength: 1, maxLength: 200 }), baseUrl: Opt(S.Nullable(Str)), secret: S.Secret }),
    result: S.Credential,
  },
  listCredentialModels: { method: 'GET', path: '/provider-credentials/{id}/models', identity: 'H', accountScoped: true, permission: 'credentials:read', result: Type.Array(S.Model) },
  rotateCredential: {
    method: 'POST', path: '/provider-credentials/{id}/rotate', identity: 'H', accountScoped: true, permission: 'credentials:rotate',
    body: S.Body({ secret: S.Secret }), result: S.Credential,
  },
  updateCredential: {
    method: 'PATCH', path: '/provider-credentials/{id}', identity: 'H', accountScoped: true, permission: 'credentials:update',
    body: S.Body({ label: Opt(Type.String({ minLength: 1, maxLength: 200 })), baseUrl: Opt(S.Nullable(Str)) }), result: S.Credential,
  },
  deleteCredential: { method: 'DELETE', path: '/provider-credentials/{id}', identity: 'H', accountScoped: true, permission: 'credentials:delete', result: S.Credential },

  // ------------------------------------------------------------ gateways
  listGateways: {
    method: 'GET', path: '/gateways', identity: 'H', accountScoped: true, permission: 'gateways:read',
    query: S.Query({ projectId: Opt(Id), includeDisabled: Opt(Bool), ...S.Page }), result: Type.Array(S.Gateway), pages: 'array',
  },
  getGateway: { method: 'GET', path: '/gateways/{id}', identity: 'SA', accountScoped: true, permission: 'gateways:read', result: S.Gateway },
  createGateway: {
    method: 'POST', path: '/gateways', identity: 'H', accountScoped: true, permission: 'gateways:create', planLimited: 'gateways',
    body: S.Body({
      projectId: Id, name: Type.String({ minLength: 1, maxLength: 200 }), slug: Str,
      defaultProviderId: Id, defaultModel: Type.String({ minLength: 1 }), credentialIds: Type.Array(Id, { minItems: 1 }),
    }),
    result: S.Gateway,
  },
  updateGateway: {
    method: 'PATCH', path: '/gateways/{id}', identity: 'H', accountScoped: true, permission: 'gateways:update',
    body: S.Body({ name: Opt(Type.String({ minLength: 1, maxLength: 200 })), slug: Opt(Str), defaultProviderId: Opt(Id), defaultModel: Opt(Type.String({ minLength: 1 })) }),
    result: S.Gateway,
  },
  deleteGateway: { method: 'DELETE', path: '/gateways/{id}', identity: 'H', accountScoped: true, permission: 'gateways:delete' },
  attachGatewayCredential: {
    method: 'POST', path: '/gateways/{id}/credentials', identity: 'H', accountScoped: true, permission: 'gateways:update',
    body: S.Body({ credentialId: Id }), result: S.Gateway,
  },
  detachGatewayCredential: { method: 'DELETE', path: '/gateways/{id}/credentials/{credentialId}', identity: 'H', accountScoped: true, permission: 'gateways:update', result: S.Gateway },
  updateGatewaySettings: {
    method: 'PATCH', path: '/gateways/{id}/settings', identity: 'H', accountScoped: true, permission: 'gateways:update',
    body: S.GatewaySettingsPatch, result: S.GatewaySettings,
  },
  getOtelExport: { method: 'GET', path: '/gateways/{id}/otel-export', identity: 'H', accountScoped: true, permission: 'gateways:read', result: S.OtelExport },
  updateOtelExport: {
    method: 'PATCH', path: '/gateways/{id}/otel-export', identity: 'H', accountScoped: true, permission: 'gateways:update',
    body: S.Body({
      enabled: Opt(Bool), endpoint: Opt(S.Nullable(Str)), exportMetrics: Opt(Bool), exportTraces: Opt(Bool),
      headers: Opt(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' }), Type.String({ maxLength: 4096 }))),
    }),
    result: S.OtelExport,
  },

  // ------------------------------------------------------------ gateway tokens
  listGatewayTokens: {
    method: 'GET', path: '/gateways/{id}/tokens', identity: 'SA', accountScoped: true, permission: 'gateway-tokens:read',
    query: S.Query({ ...S.Page }), result: Type.Array(S.GatewayToken), pages: 'array',
  },
  createGatewayToken: {
    method: 'POST', path: '/gateways/{id}/tokens', identity: 'H', accountScoped: true, permission: 'gateway-tokens:create',
    body: S.Body({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      scopes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
      expiresInDays: Opt(S.Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
      allowedModels: Opt(Type.Array(Type.String({ minLength: 1 }))),
      rateLimitPerMin: Opt(S.Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
      spendLimit: Opt(S.Nullable(Type.String({ pattern: '^[0-9]+(\\.[0-9]{1,2})?$' }))),
      spendWindow: Opt(S.Nullable(Type.String())),
      serviceAccountId: Opt(Id),
    }),
    result: S.CreatedGatewayToken,
  },
  renameGatewayToken: {
    method: 'PATCH', path: '/gateways/{id}/tokens/{tokenId}', identity: 'H', accountScoped: true, permission: 'gateway-tokens:rename',
    body: S.Body({ name: Type.String({ minLength: 1, maxLength: 100 }) }), result: S.GatewayToken,
  },
  revokeGatewayToken: { method: 'DELETE', path: '/gateways/{id}/tokens/{tokenId}/revoke', identity: 'H', accountScoped: true, permission: 'gateway-tokens:revoke', result: S.GatewayToken },
  deleteGatewayToken: { method: 'DELETE', path: '/gateways/{id}/tokens/{tokenId}', identity: 'H', accountScoped: true, permission: 'gateway-tokens:delete', result: S.TokenDeleted },

  // ------------------------------------------------------------ logs, usage, key access
  listGatewayLogs: {
    method: 'GET', path: '/gateways/{id}/logs', identity: 'SA', accountScoped: true, permission: 'gateways:read-logs',
    query: S.Query({ status: Opt(Str), model: Opt(Str), ...S.Page }), result: Type.Array(S.LogEntry), pages: 'array',
  },
  getGatewayLog: { method: 'GET', path: '/gateways/{id}/logs/{logId}', identity: 'SA', accountScoped: true, permission: 'gateways:read-logs', result: S.LogDetail },
  listGatewayKeyAccess: {
    method: 'GET', path: '/gateways/{id}/key-access', identity: 'SA', accountScoped: true, permission: 'gateways:read-key-access',
    query: S.Query({ outcome: Opt(Str), ...S.Page }), result: S.KeyAccessPage, pages: 'rows',
  },
  listUsageLogs: {
    method: 'GET', path: '/usage/logs', identity: 'H', accountScoped: true, permission: 'usage:read',
    query: S.Query({ projectId: Opt(Str), gatewayId: Opt(Id), status: Opt(Str), ...S.Page }), result: Type.Array(S.LogEntry), pages: 'array',
  },
  getUsageLog: {
    method: 'GET', path: '/usage/logs/{logId}', identity: 'H', accountScoped: true, permission: 'usage:read-bodies',
    query: S.Query({ projectId: Opt(Str) }), result: S.LogBodies,
  },
  getUsageSpend: {
    method: 'GET', path: '/usage/spend', identity: 'H', accountScoped: true, permission: 'usage:read',
    query: S.Query({ projectId: Opt(Str), since: Opt(Str) }), result: S.Spend,
  },
  getUsageMetrics: {
    method: 'GET', path: '/usage/metrics', identity: 'H', accountScoped: true, permission: 'usage:read',
    query: S.Query({ projectId: Opt(Str), since: Opt(Str), bucket: Opt(Str) }), result: Type.Array(S.MetricsBucket),
  },

  // ------------------------------------------------------------ service accounts and groups
  listServiceAccounts: {
    method: 'GET', path: '/service-accounts', identity: 'H', accountScoped: true, permission: 'service-accounts:read',
    query: S.Query({ accountId: Opt(Id) }), result: Type.Array(S.ServiceAccount),
  },
  grantServiceAccount: {
    method: 'POST', path: '/service-accounts/{id}/grants', identity: 'H', accountScoped: true, permission: 'records:share-service-account', ownerMay: true,
    body: S.Body({ recordId: Id, wrappedDek: Type.String({ minLength: 1 }) }), result: S.ServiceAccountGrant,
  },
  deleteGroup: { method: 'DELETE', path: '/groups/{groupId}', identity: 'H', accountScoped: true, permission: 'groups:delete', result: S.GroupMutationResult },
  grantProjectGroupRole: {
    method: 'POST', path: '/projects/{id}/group-grants/{groupId}', identity: 'H', accountScoped: true, permission: 'groups:grant',
    body: S.Body({ roleId: Id }), result: S.GroupMutationResult,
  },
} as const satisfies Record<string, OperationSpec>;

export type Operations = typeof operations;
export type OperationName = keyof Operations;

/** Path parameter names of a path template, as a union of string literals. */
type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? N | PathParamNames<Rest> : never;
type StaticOf<T> = T extends TSchema ? Static<T> : never;

export type PathParams<K extends OperationName> = { [N in PathParamNames<Operations[K]['path']>]: string };
export type QueryOf<K extends OperationName> = Operations[K] extends { query: infer Q } ? StaticOf<Q> : never;
export type BodyOf<K extends OperationName> = Operations[K] extends { body: infer B } ? StaticOf<B> : never;
export type ResultOf<K extends OperationName> = Operations[K] extends { result: infer R } ? StaticOf<R> : undefined;

/** What a caller passes for one operation: only the parts the operation has. */
export type RequestOf<K extends OperationName> =
  (PathParamNames<Operations[K]['path']> extends never ? { path?: undefined } : { path: PathParams<K> }) &
  (Operations[K] extends { query: unknown } ? { query?: QueryOf<K> } : { query?: undefined }) &
  (Operations[K] extends { body: unknown } ? { body: BodyOf<K> } : { body?: undefined });

export const operationNames = Object.keys(operations) as OperationName[];

/** Fills a path template: `/gateways/{id}` + {id: 'x'} -> `/gateways/x` (each value URL-encoded). */
export function fillPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter "${name}" for ${template}`);
    return encodeURIComponent(value);
  });
}
