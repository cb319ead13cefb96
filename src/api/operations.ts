/**
 * The one declarative table of every API operation: the 59 of the catalogue
 * plus the two group operations. Each entry is its route from routes.ts (the
 * plain table the client sends requests with) plus the TypeBox schemas of its
 * query, body and result. The emulator routes, authenticates, authorises and
 * validates every request with it, and the TypeScript types of parameters and
 * results are inferred from it. Nothing else in the code base knows a path or
 * a body shape.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { routes, type Route, type RouteName } from './routes.js';
import * as S from './shapes.js';

export type { HttpMethod, Identity } from './routes.js';
export { fillPath } from './routes.js';

/** A route and the schemas of what it takes and answers. */
export interface OperationSpec extends Route {
  query?: TSchema;
  body?: TSchema;
  /** Schema of `data` in the success envelope; undefined for `{ok: true}` with no data. */
  result?: TSchema;
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
  listAccounts: { ...routes.listAccounts, result: Type.Array(S.Account) },

  // ------------------------------------------------------------ projects
  listProjects: {
    ...routes.listProjects,
    query: S.Query({ accountId: Opt(Id), includeArchived: Opt(Bool), ...S.Page }),
    result: Type.Array(S.Project),
  },
  getProject: { ...routes.getProject, result: S.Project },
  createProject: {
    ...routes.createProject,
    body: S.Body({ accountId: Id, name: Type.String({ minLength: 1, maxLength: 200 }), description: Type.String({ maxLength: 2000 }) }),
    result: S.ProjectCreated,
  },
  updateProject: {
    ...routes.updateProject,
    body: S.Body({
      name: Type.String({ minLength: 1, maxLength: 200 }),
      description: Opt(Type.String({ maxLength: 2000 })),
      isActive: Opt(Bool),
    }),
    result: S.Project,
  },
  archiveProject: {
    ...routes.archiveProject,
    body: S.Body({ archived: Bool }),
    result: S.Project,
  },

  // ------------------------------------------------------------ records
  listRecords: {
    ...routes.listRecords,
    query: S.Query({ accountId: Opt(Id), includeArchived: Opt(Bool), ...S.Page }),
    result: Type.Array(S.RecordMeta),
  },
  listProjectRecords: {
    ...routes.listProjectRecords,
    query: S.Query({ includeArchived: Opt(Bool), ...S.Page }),
    result: Type.Array(S.RecordMeta),
  },
  getRecord: { ...routes.getRecord, result: S.RecordMeta },
  readRecord: {
    ...routes.readRecord,
    body: S.Body({
      scope: Type.Array(Type.Union([Type.Literal('meta'), Type.Literal('fields')]), { minItems: 1 }),
      environment: Opt(Str),
    }),
    result: S.RecordRead,
  },
  listRecordVersions: { ...routes.listRecordVersions, result: Type.Array(S.RecordVersion) },
  listRecordAudit: {
    ...routes.listRecordAudit,
    query: S.Query({ limit: S.Page.limit }),
    result: Type.Array(S.AuditRow),
  },
  listRecordAnomalies: {
    ...routes.listRecordAnomalies,
    query: S.Query(scope),
    result: Type.Array(S.AnomalyRow),
  },
  listRecordActivity: {
    ...routes.listRecordActivity,
    query: S.Query({ ...scope, day: Opt(Str) }),
    result: Type.Array(S.ActivityRow),
  },
  listRecordAlerts: {
    ...routes.listRecordAlerts,
    query: S.Query({ ...scope, ...S.Page }),
    result: Type.Array(S.AlertRow),
  },
  listRecordAccess: {
    ...routes.listRecordAccess,
    query: S.Query({ ...scope, actions: Opt(Str), ...S.Page }),
    result: Type.Array(S.AuditRow),
  },
  createRecord: {
    ...routes.createRecord,
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
    ...routes.createRecordVersion,
    body: S.EncryptedValue,
    result: S.RecordVersionCreated,
  },
  updateRecord: {
    ...routes.updateRecord,
    body: S.Body({
      name: Opt(Type.String({ minLength: 1, maxLength: 200 })),
      tags: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
      secretDueAt: Opt(S.Nullable(S.DateTime)),
      rotationIntervalDays: Opt(S.Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
    }),
    result: S.Ok,
  },
  archiveRecord: {
    ...routes.archiveRecord,
    body: S.Body({ archived: Bool }),
    result: S.RecordMeta,
  },
  transferRecordOwnership: {
    ...routes.transferRecordOwnership,
    body: S.Body({ userId: Id }),
    result: S.RecordOwner,
  },
  rollbackRecord: {
    ...routes.rollbackRecord,
    body: S.Body({ version: Type.Integer({ minimum: 1 }) }),
    result: S.RecordVersionCreated,
  },
  rotateRecord: {
    ...routes.rotateRecord,
    body: S.EncryptedValue,
    result: S.RecordVersionCreated,
  },
  shareRecordWithUser: {
    ...routes.shareRecordWithUser,
    body: S.Body({ userId: Id, wrappedDek: Type.String({ minLength: 1 }) }),
    result: S.UserGrant,
  },
  shareRecordWithGroup: {
    ...routes.shareRecordWithGroup,
    body: S.Body({ groupId: Id, wrappedDek: Type.String({ minLength: 1 }) }),
    result: S.GroupGrant,
  },
  revokeRecordUser: {
    ...routes.revokeRecordUser,
    body: S.Body({ userId: Id }),
    result: S.UserGrant,
  },
  revokeRecordGroup: {
    ...routes.revokeRecordGroup,
    body: S.Body({ groupId: Id }),
    result: S.GroupGrant,
  },
  revokeRecordServiceAccount: {
    ...routes.revokeRecordServiceAccount,
    body: S.Body({ serviceAccountId: Id }),
    result: S.ServiceAccountGrant,
  },

  // ------------------------------------------------------------ providers and credentials
  listProviders: { ...routes.listProviders, result: Type.Array(S.Provider) },
  listCredentials: {
    ...routes.listCredentials,
    query: S.Query({ includeRevoked: Opt(Bool), ...S.Page }),
    result: Type.Array(S.Credential),
  },
  createCredential: {
    ...routes.createCredential,
    body: S.Body({ providerId: Id, label: Type.String({ minLength: 1, maxLength: 200 }), baseUrl: Opt(S.Nullable(Str)), secret: S.Secret }),
    result: S.Credential,
  },
  listCredentialModels: { ...routes.listCredentialModels, result: Type.Array(S.Model) },
  rotateCredential: {
    ...routes.rotateCredential,
    body: S.Body({ secret: S.Secret }),
    result: S.Credential,
  },
  updateCredential: {
    ...routes.updateCredential,
    body: S.Body({ label: Opt(Type.String({ minLength: 1, maxLength: 200 })), baseUrl: Opt(S.Nullable(Str)) }),
    result: S.Credential,
  },
  deleteCredential: { ...routes.deleteCredential, result: S.Credential },

  // ------------------------------------------------------------ gateways
  listGateways: {
    ...routes.listGateways,
    query: S.Query({ projectId: Opt(Id), includeDisabled: Opt(Bool), ...S.Page }),
    result: Type.Array(S.Gateway),
  },
  getGateway: { ...routes.getGateway, result: S.Gateway },
  createGateway: {
    ...routes.createGateway,
    body: S.Body({
      projectId: Id,
      name: Type.String({ minLength: 1, maxLength: 200 }),
      slug: Str,
      defaultProviderId: Id,
      defaultModel: Type.String({ minLength: 1 }),
      credentialIds: Type.Array(Id, { minItems: 1 }),
    }),
    result: S.Gateway,
  },
  updateGateway: {
    ...routes.updateGateway,
    body: S.Body({
      name: Opt(Type.String({ minLength: 1, maxLength: 200 })),
      slug: Opt(Str),
      defaultProviderId: Opt(Id),
      defaultModel: Opt(Type.String({ minLength: 1 })),
    }),
    result: S.Gateway,
  },
  deleteGateway: { ...routes.deleteGateway },
  attachGatewayCredential: {
    ...routes.attachGatewayCredential,
    body: S.Body({ credentialId: Id }),
    result: S.Gateway,
  },
  detachGatewayCredential: { ...routes.detachGatewayCredential, result: S.Gateway },
  updateGatewaySettings: {
    ...routes.updateGatewaySettings,
    body: S.GatewaySettingsPatch,
    result: S.GatewaySettings,
  },
  getOtelExport: { ...routes.getOtelExport, result: S.OtelExport },
  updateOtelExport: {
    ...routes.updateOtelExport,
    body: S.Body({
      enabled: Opt(Bool),
      endpoint: Opt(S.Nullable(Str)),
      exportMetrics: Opt(Bool),
      exportTraces: Opt(Bool),
      headers: Opt(Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,100}$' }), Type.String({ maxLength: 4096, writeOnly: true }))),
    }),
    result: S.OtelExport,
  },

  // ------------------------------------------------------------ gateway tokens
  listGatewayTokens: {
    ...routes.listGatewayTokens,
    query: S.Query({ ...S.Page }),
    result: Type.Array(S.GatewayToken),
  },
  createGatewayToken: {
    ...routes.createGatewayToken,
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
    ...routes.renameGatewayToken,
    body: S.Body({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
    result: S.GatewayToken,
  },
  revokeGatewayToken: { ...routes.revokeGatewayToken, result: S.GatewayToken },
  deleteGatewayToken: { ...routes.deleteGatewayToken, result: S.TokenDeleted },

  // ------------------------------------------------------------ logs, usage, key access
  listGatewayLogs: {
    ...routes.listGatewayLogs,
    query: S.Query({ status: Opt(Str), model: Opt(Str), ...S.Page }),
    result: Type.Array(S.LogEntry),
  },
  getGatewayLog: { ...routes.getGatewayLog, result: S.LogDetail },
  listGatewayKeyAccess: {
    ...routes.listGatewayKeyAccess,
    query: S.Query({ outcome: Opt(Str), ...S.Page }),
    result: S.KeyAccessPage,
  },
  listUsageLogs: {
    ...routes.listUsageLogs,
    query: S.Query({ projectId: Opt(Str), gatewayId: Opt(Id), status: Opt(Str), ...S.Page }),
    result: Type.Array(S.LogEntry),
  },
  getUsageLog: {
    ...routes.getUsageLog,
    query: S.Query({ projectId: Opt(Str) }),
    result: S.LogBodies,
  },
  getUsageSpend: {
    ...routes.getUsageSpend,
    query: S.Query({ projectId: Opt(Str), since: Opt(Str) }),
    result: S.Spend,
  },
  getUsageMetrics: {
    ...routes.getUsageMetrics,
    query: S.Query({ projectId: Opt(Str), gatewayId: Opt(Id), since: Opt(Str), bucket: Opt(Str), groupBy: Opt(Str) }),
    result: Type.Array(S.MetricsBucket),
  },

  // ------------------------------------------------------------ service accounts and groups
  listServiceAccounts: {
    ...routes.listServiceAccounts,
    query: S.Query({ accountId: Opt(Id) }),
    result: Type.Array(S.ServiceAccount),
  },
  grantServiceAccount: {
    ...routes.grantServiceAccount,
    body: S.Body({ recordId: Id, wrappedDek: Type.String({ minLength: 1 }) }),
    result: S.ServiceAccountGrant,
  },
  deleteGroup: { ...routes.deleteGroup, result: S.GroupMutationResult },
  grantProjectGroupRole: {
    ...routes.grantProjectGroupRole,
    body: S.Body({ roleId: Id }),
    result: S.GroupMutationResult,
  },
} as const satisfies { [K in RouteName]: OperationSpec };

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
export type RequestOf<K extends OperationName> = (PathParamNames<Operations[K]['path']> extends never
  ? { path?: undefined }
  : { path: PathParams<K> }) &
  (Operations[K] extends { query: unknown } ? { query?: QueryOf<K> } : { query?: undefined }) &
  (Operations[K] extends { body: unknown } ? { body: BodyOf<K> } : { body?: undefined });

export const operationNames = Object.keys(operations) as OperationName[];
