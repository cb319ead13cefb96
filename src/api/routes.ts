/**
 * The route table: how every API operation travels (method, path, which token
 * may call it, whether it needs `x-account-id`, how it pages). It is plain
 * data with no schema library, so the client and the CLI load it in no time.
 * The schemas of parameters and results are added on top of it in
 * operations.ts, which the emulator, `cplane api`, MCP and OpenAPI use: this
 * table stays the one source of truth for every route.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** H: human PAT only. SA: a Service Account token is accepted too. */
export type Identity = 'H' | 'SA';

export interface Route {
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
  /** How a paginated list pages: `array` (data is the page) or `rows` (data.rows, data.total). */
  pages?: 'array' | 'rows';
  /** Plan-limited creation (spec Limits 5): may fail with `plan_limit_reached`. */
  planLimited?: 'projects' | 'credentials' | 'gateways';
}

export const routes = {
  // ------------------------------------------------------------ accounts
  listAccounts: { method: 'GET', path: '/accounts', identity: 'H', accountScoped: false, permission: 'accounts:read' },

  // ------------------------------------------------------------ projects
  listProjects: { method: 'GET', path: '/projects', identity: 'H', accountScoped: true, permission: 'projects:read', pages: 'array' },
  getProject: { method: 'GET', path: '/projects/{id}', identity: 'H', accountScoped: true, permission: 'projects:read' },
  createProject: {
    method: 'POST',
    path: '/projects',
    identity: 'H',
    accountScoped: true,
    permission: 'projects:create',
    planLimited: 'projects',
  },
  updateProject: { method: 'PATCH', path: '/projects/{id}', identity: 'H', accountScoped: true, permission: 'projects:update' },
  archiveProject: { method: 'PATCH', path: '/projects/{id}/archive', identity: 'H', accountScoped: true, permission: 'projects:archive' },

  // ------------------------------------------------------------ records
  listRecords: { method: 'GET', path: '/records', identity: 'SA', accountScoped: true, permission: 'records:read', pages: 'array' },
  listProjectRecords: {
    method: 'GET',
    path: '/records/by-project/{projectId}',
    identity: 'SA',
    accountScoped: true,
    permission: 'records:read',
    pages: 'array',
  },
  getRecord: { method: 'GET', path: '/records/{id}', identity: 'SA', accountScoped: true, permission: 'records:read' },
  readRecord: { method: 'POST', path: '/records/{id}/read', identity: 'SA', accountScoped: true, permission: 'records:read' },
  listRecordVersions: {
    method: 'GET',
    path: '/records/{id}/versions',
    identity: 'H',
    accountScoped: true,
    permission: 'records:read',
    ownerMay: true,
  },
  listRecordAudit: {
    method: 'GET',
    path: '/records/{id}/audit',
    identity: 'H',
    accountScoped: true,
    permission: 'audit:read',
    ownerMay: true,
  },
  listRecordAnomalies: { method: 'GET', path: '/audit/record-anomalies', identity: 'H', accountScoped: true, permission: 'audit:read' },
  listRecordActivity: { method: 'GET', path: '/audit/record-activity', identity: 'H', accountScoped: true, permission: 'audit:read' },
  listRecordAlerts: {
    method: 'GET',
    path: '/audit/record-alerts',
    identity: 'H',
    accountScoped: true,
    permission: 'audit:read',
    pages: 'array',
  },
  listRecordAccess: {
    method: 'GET',
    path: '/audit/record-access',
    identity: 'H',
    accountScoped: true,
    permission: 'audit:read',
    pages: 'array',
  },
  createRecord: { method: 'POST', path: '/records', identity: 'H', accountScoped: true, permission: 'records:create' },
  createRecordVersion: {
    method: 'POST',
    path: '/records/{id}/version',
    identity: 'H',
    accountScoped: true,
    permission: 'records:update',
    ownerMay: true,
  },
  updateRecord: {
    method: 'PATCH',
    path: '/records/{id}',
    identity: 'H',
    accountScoped: true,
    permission: 'records:update',
    ownerMay: true,
  },
  archiveRecord: {
    method: 'PATCH',
    path: '/records/{id}/archive',
    identity: 'H',
    accountScoped: true,
    permission: 'records:archive',
    ownerMay: true,
  },
  transferRecordOwnership: {
    method: 'POST',
    path: '/records/{id}/transfer-ownership',
    identity: 'H',
    accountScoped: true,
    permission: 'records:transfer',
    ownerMay: true,
  },
  rollbackRecord: {
    method: 'POST',
    path: '/records/{id}/rollback',
    identity: 'H',
    accountScoped: true,
    permission: 'records:update',
    ownerMay: true,
  },
  rotateRecord: {
    method: 'POST',
    path: '/records/{id}/rotate',
    identity: 'H',
    accountScoped: true,
    permission: 'records:rotate',
    ownerMay: true,
  },
  shareRecordWithUser: {
    method: 'POST',
    path: '/records/{id}/share/user',
    identity: 'H',
    accountScoped: true,
    permission: 'records:share',
    ownerMay: true,
  },
  shareRecordWithGroup: {
    method: 'POST',
    path: '/records/{id}/share/group',
    identity: 'H',
    accountScoped: true,
    permission: 'records:share',
    ownerMay: true,
  },
  revokeRecordUser: {
    method: 'POST',
    path: '/records/{id}/revoke/user',
    identity: 'H',
    accountScoped: true,
    permission: 'records:revoke',
    ownerMay: true,
  },
  revokeRecordGroup: {
    method: 'POST',
    path: '/records/{id}/revoke/group',
    identity: 'H',
    accountScoped: true,
    permission: 'records:revoke',
    ownerMay: true,
  },
  revokeRecordServiceAccount: {
    method: 'POST',
    path: '/records/{id}/revoke/service-account',
    identity: 'H',
    accountScoped: true,
    permission: 'records:revoke-service-account',
    ownerMay: true,
  },

  // ------------------------------------------------------------ providers and credentials
  listProviders: { method: 'GET', path: '/providers', identity: 'SA', accountScoped: false, permission: 'providers:read' },
  listCredentials: {
    method: 'GET',
    path: '/provider-credentials',
    identity: 'H',
    accountScoped: true,
    permission: 'credentials:read',
    pages: 'array',
  },
  createCredential: {
    method: 'POST',
    path: '/provider-credentials',
    identity: 'H',
    accountScoped: true,
    permission: 'credentials:create',
    planLimited: 'credentials',
  },
  listCredentialModels: {
    method: 'GET',
    path: '/provider-credentials/{id}/models',
    identity: 'H',
    accountScoped: true,
    permission: 'credentials:read',
  },
  rotateCredential: {
    method: 'POST',
    path: '/provider-credentials/{id}/rotate',
    identity: 'H',
    accountScoped: true,
    permission: 'credentials:rotate',
  },
  updateCredential: {
    method: 'PATCH',
    path: '/provider-credentials/{id}',
    identity: 'H',
    accountScoped: true,
    permission: 'credentials:update',
  },
  deleteCredential: {
    method: 'DELETE',
    path: '/provider-credentials/{id}',
    identity: 'H',
    accountScoped: true,
    permission: 'credentials:delete',
  },

  // ------------------------------------------------------------ gateways
  listGateways: { method: 'GET', path: '/gateways', identity: 'H', accountScoped: true, permission: 'gateways:read', pages: 'array' },
  getGateway: { method: 'GET', path: '/gateways/{id}', identity: 'SA', accountScoped: true, permission: 'gateways:read' },
  createGateway: {
    method: 'POST',
    path: '/gateways',
    identity: 'H',
    accountScoped: true,
    permission: 'gateways:create',
    planLimited: 'gateways',
  },
  updateGateway: { method: 'PATCH', path: '/gateways/{id}', identity: 'H', accountScoped: true, permission: 'gateways:update' },
  deleteGateway: { method: 'DELETE', path: '/gateways/{id}', identity: 'H', accountScoped: true, permission: 'gateways:delete' },
  attachGatewayCredential: {
    method: 'POST',
    path: '/gateways/{id}/credentials',
    identity: 'H',
    accountScoped: true,
    permission: 'gateways:update',
  },
  detachGatewayCredential: {
    method: 'DELETE',
    path: '/gateways/{id}/credentials/{credentialId}',
    identity: 'H',
    accountScoped: true,
    permission: 'gateways:update',
  },
  updateGatewaySettings: {
    method: 'PATCH',
    path: '/gateways/{id}/settings',
    identity: 'H',
    accountScoped: true,
    permission: 'gateways:update',
  },
  getOtelExport: { method: 'GET', path: '/gateways/{id}/otel-export', identity: 'H', accountScoped: true, permission: 'gateways:read' },
  updateOtelExport: {
    method: 'PATCH',
    path: '/gateways/{id}/otel-export',
    identity: 'H',
    accountScoped: true,
    permission: 'gateways:update',
  },

  // ------------------------------------------------------------ gateway tokens
  listGatewayTokens: {
    method: 'GET',
    path: '/gateways/{id}/tokens',
    identity: 'SA',
    accountScoped: true,
    permission: 'gateway-tokens:read',
    pages: 'array',
  },
  createGatewayToken: {
    method: 'POST',
    path: '/gateways/{id}/tokens',
    identity: 'H',
    accountScoped: true,
    permission: 'gateway-tokens:create',
  },
  renameGatewayToken: {
    method: 'PATCH',
    path: '/gateways/{id}/tokens/{tokenId}',
    identity: 'H',
    accountScoped: true,
    permission: 'gateway-tokens:rename',
  },
  revokeGatewayToken: {
    method: 'DELETE',
    path: '/gateways/{id}/tokens/{tokenId}/revoke',
    identity: 'H',
    accountScoped: true,
    permission: 'gateway-tokens:revoke',
  },
  deleteGatewayToken: {
    method: 'DELETE',
    path: '/gateways/{id}/tokens/{tokenId}',
    identity: 'H',
    accountScoped: true,
    permission: 'gateway-tokens:delete',
  },

  // ------------------------------------------------------------ logs, usage, key access
  listGatewayLogs: {
    method: 'GET',
    path: '/gateways/{id}/logs',
    identity: 'SA',
    accountScoped: true,
    permission: 'gateways:read-logs',
    pages: 'array',
  },
  getGatewayLog: {
    method: 'GET',
    path: '/gateways/{id}/logs/{logId}',
    identity: 'SA',
    accountScoped: true,
    permission: 'gateways:read-logs',
  },
  listGatewayKeyAccess: {
    method: 'GET',
    path: '/gateways/{id}/key-access',
    identity: 'SA',
    accountScoped: true,
    permission: 'gateways:read-key-access',
    pages: 'rows',
  },
  listUsageLogs: { method: 'GET', path: '/usage/logs', identity: 'H', accountScoped: true, permission: 'usage:read', pages: 'array' },
  getUsageLog: { method: 'GET', path: '/usage/logs/{logId}', identity: 'H', accountScoped: true, permission: 'usage:read-bodies' },
  getUsageSpend: { method: 'GET', path: '/usage/spend', identity: 'H', accountScoped: true, permission: 'usage:read' },
  getUsageMetrics: { method: 'GET', path: '/usage/metrics', identity: 'H', accountScoped: true, permission: 'usage:read' },

  // ------------------------------------------------------------ service accounts and groups
  listServiceAccounts: {
    method: 'GET',
    path: '/service-accounts',
    identity: 'H',
    accountScoped: true,
    permission: 'service-accounts:read',
  },
  grantServiceAccount: {
    method: 'POST',
    path: '/service-accounts/{id}/grants',
    identity: 'H',
    accountScoped: true,
    permission: 'records:share-service-account',
    ownerMay: true,
  },
  deleteGroup: { method: 'DELETE', path: '/groups/{groupId}', identity: 'H', accountScoped: true, permission: 'groups:delete' },
  grantProjectGroupRole: {
    method: 'POST',
    path: '/projects/{id}/group-grants/{groupId}',
    identity: 'H',
    accountScoped: true,
    permission: 'groups:grant',
  },
} as const satisfies Record<string, Route>;

export type Routes = typeof routes;
export type RouteName = keyof Routes;

export const routeNames = Object.keys(routes) as RouteName[];

/** Fills a path template: `/gateways/{id}` + {id: 'x'} -> `/gateways/x` (each value URL-encoded). */
export function fillPath(template: string, params: Record<string, string> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter "${name}" for ${template}`);
    return encodeURIComponent(value);
  });
}
