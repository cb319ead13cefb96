// One successful call of each operation, as data (parameters by name, body, which token), so the
// same calls drive `cplane api` through the CLI and raw HTTP checked against the OpenAPI document. Each call
// works on objects of its own (made by `arrange`), so the calls succeed in any order and in any split.
import { createClient, type ApiClient, type OperationName } from '../../src/api/index.js';
import { fixtures } from '../../src/emulator/index.js';
import { kindCases, operationExamples } from '../helpers/kind-cases.js';
import { placeOf, wrapperFor } from '../helpers/readers.js';

export const acme = fixtures.accounts[0]!.id;
const seededProject = fixtures.projects[0]!.id;
const seededRecord = fixtures.records[0]!.id;
const seededGateway = fixtures.gateways[0]!.id;
const [openai, anthropic] = fixtures.providers.map((p) => p.id) as [string, string];
const anthropicCredential = fixtures.credentials[1]!.id;
const dana = fixtures.users[2]!.id;
const platformGroup = fixtures.groups[0]!.id;
const auditorsGroup = fixtures.groups[1]!.id;
const ciDeployer = fixtures.serviceAccounts[0]!.id;
const readerRole = fixtures.roles[1]!.id;
export const value = (n: number) => ({
  ciphertext: Buffer.from(`ciphertext ${n}`).toString('base64'),
  wrapper: { alg: 'xchacha20poly1305', keyId: 'user:ada', wrappedDek: `dek-${n}` },
});

/** Write-only values the calls send: they must never be printed back. */
export const sentSecrets = {
  provider: 'sk-cli-provider-secret-4711',
  rotated: 'sk-cli-rotated-secret-4712',
  otelHeader: 'Bearer otel-header-secret-4713',
};

export type Ids = Record<string, string>;

export interface Call {
  params?: Record<string, string>;
  body?: unknown;
  /** Which seeded token makes the call (default: the admin PAT). */
  as?: 'admin' | 'serviceAccount';
}

/** Objects the calls below work on, made through the client (the arrangement, not the thing under test). */
export async function arrange(baseUrl: string): Promise<Ids> {
  const admin: ApiClient = createClient({ baseUrl, token: fixtures.tokens.admin, accountId: acme, retry: { maxAttempts: 1 } });
  try {
    const project = async (name: string) =>
      (await admin.call('createProject', { body: { accountId: acme, name, description: '' } })).project_id;
    const record = async (projectId: string, name: string) =>
      (await admin.call('createRecord', { body: { projectId, name, value: value(1) } })).record_id;
    const credential = async (label: string, providerId = openai) =>
      (await admin.call('createCredential', { body: { providerId, label, secret: `sk-arranged-${label}` } })).credential_id;
    const ids: Ids = {};
    ids.project = await project('calls');
    ids.projectToArchive = await project('calls-archive');
    ids.record = await record(ids.project, 'calls-record');
    await admin.call('createRecordVersion', { path: { id: ids.record }, body: value(2) });
    ids.recordToArchive = await record(ids.project, 'calls-archive');
    ids.recordShared = await record(ids.project, 'calls-shared');
    // Wrappers that open with each reader's fixture key, for version 1 (the emulator checks both).
    const shared = await placeOf(admin, ids.recordShared);
    await admin.call('shareRecordWithUser', {
      path: { id: ids.recordShared },
      body: { userId: dana, wrappedDek: wrapperFor(shared, dana) },
    });
    await admin.call('shareRecordWithGroup', {
      path: { id: ids.recordShared },
      body: { groupId: auditorsGroup, wrappedDek: wrapperFor(shared, auditorsGroup) },
    });
    await admin.call('grantServiceAccount', {
      path: { id: ciDeployer },
      body: { recordId: ids.recordShared, wrappedDek: wrapperFor(shared, ciDeployer) },
    });
    // Shared and granted by the calls below: its value stays at version 1, whatever order they run in.
    ids.recordToShare = await record(ids.project, 'calls-to-share');
    const toShare = await placeOf(admin, ids.recordToShare);
    for (const reader of [dana, auditorsGroup, ciDeployer]) ids[`wrapToShare:${reader}`] = wrapperFor(toShare, reader);
    ids.credential = await credential('calls-openai');
    ids.credential2 = await credential('calls-anthropic', anthropic);
    ids.credentialToDelete = await credential('calls-delete');
    const gateway = async (slug: string, credentialIds: string[]) =>
      (
        await admin.call('createGateway', {
          body: { projectId: ids.project!, name: slug, slug, defaultProviderId: openai, defaultModel: 'gpt-4o', credentialIds },
        })
      ).gateway_id;
    ids.gateway = await gateway('calls-gw', [ids.credential]);
    ids.gatewayTwoCredentials = await gateway('calls-gw-two', [ids.credential, ids.credential2]);
    ids.gatewayToDelete = await gateway('calls-gw-delete', [ids.credential]);
    const token = async (name: string) =>
      (await admin.call('createGatewayToken', { path: { id: ids.gateway! }, body: { name, scopes: ['run'] } })).token_id;
    ids.tokenToRename = await token('calls-rename');
    ids.tokenToRevoke = await token('calls-revoke');
    ids.tokenToDelete = await token('calls-delete');
    ids.log = (await admin.call('listGatewayLogs', { path: { id: seededGateway }, query: { limit: 1 } }))[0]!.log_id;
    for (const k of kindCases) await k.arrange?.(admin, ids);
    return ids;
  } finally {
    await admin.close();
  }
}

const scope = { scopeType: 'project', scopeId: seededProject };

export const calls: Record<OperationName, (ids: Ids) => Call> = {
  // The operations of the kinds in test/kinds/, each its example's call.
  ...(Object.fromEntries(Object.entries(operationExamples).map(([name, example]) => [name, example.call])) as Record<
    OperationName,
    (ids: Ids) => Call
  >),
  listAccounts: () => ({}),
  listProjects: () => ({ params: { includeArchived: 'true' } }),
  getProject: () => ({ params: { id: seededProject } }),
  createProject: () => ({ body: { accountId: acme, name: 'made-by-cli', description: 'from cplane api' } }),
  updateProject: (ids) => ({ params: { id: ids.project! }, body: { name: 'calls', description: 'updated', isActive: true } }),
  archiveProject: (ids) => ({ params: { id: ids.projectToArchive! }, body: { archived: true } }),
  listRecords: () => ({ params: { limit: '10' }, as: 'serviceAccount' }),
  listProjectRecords: () => ({ params: { projectId: seededProject } }),
  getRecord: () => ({ params: { id: seededRecord }, as: 'serviceAccount' }),
  readRecord: (ids) => ({ params: { id: ids.record! }, body: { scope: ['meta', 'fields'] } }),
  listRecordVersions: (ids) => ({ params: { id: ids.record! } }),
  listRecordAudit: (ids) => ({ params: { id: ids.record!, limit: '5' } }),
  listRecordAnomalies: () => ({ params: scope }),
  listRecordActivity: () => ({ params: scope }),
  listRecordAlerts: () => ({ params: { scopeType: 'account' } }),
  listRecordAccess: () => ({ params: { ...scope, actions: 'read' } }),
  createRecord: (ids) => ({ body: { projectId: ids.project!, name: 'made-by-cli', tags: ['a'], value: value(3) } }),
  createRecordVersion: (ids) => ({ params: { id: ids.record! }, body: value(4) }),
  updateRecord: (ids) => ({ params: { id: ids.record! }, body: { tags: ['x'] } }),
  archiveRecord: (ids) => ({ params: { id: ids.recordToArchive! }, body: { archived: true } }),
  rollbackRecord: (ids) => ({ params: { id: ids.record! }, body: { version: 1 } }),
  rotateRecord: (ids) => ({ params: { id: ids.record! }, body: value(5) }),
  shareRecordWithUser: (ids) => ({ params: { id: ids.recordToShare! }, body: { userId: dana, wrappedDek: ids[`wrapToShare:${dana}`]! } }),
  shareRecordWithGroup: (ids) => ({
    params: { id: ids.recordToShare! },
    body: { groupId: auditorsGroup, wrappedDek: ids[`wrapToShare:${auditorsGroup}`]! },
  }),
  revokeRecordUser: (ids) => ({ params: { id: ids.recordShared! }, body: { userId: dana } }),
  revokeRecordGroup: (ids) => ({ params: { id: ids.recordShared! }, body: { groupId: auditorsGroup } }),
  revokeRecordServiceAccount: (ids) => ({ params: { id: ids.recordShared! }, body: { serviceAccountId: ciDeployer } }),
  listProviders: () => ({ as: 'serviceAccount' }),
  listCredentials: () => ({ params: { includeRevoked: 'true' } }),
  createCredential: () => ({ body: { providerId: anthropic, label: 'made-by-cli', secret: sentSecrets.provider } }),
  listCredentialModels: (ids) => ({ params: { id: ids.credential! } }),
  rotateCredential: (ids) => ({ params: { id: ids.credential2! }, body: { secret: sentSecrets.rotated } }),
  updateCredential: (ids) => ({ params: { id: ids.credential2! }, body: { label: 'renamed-by-cli' } }),
  deleteCredential: (ids) => ({ params: { id: ids.credentialToDelete! } }),
  listGateways: () => ({ params: { includeDisabled: 'true' } }),
  getGateway: () => ({ params: { id: seededGateway }, as: 'serviceAccount' }),
  createGateway: (ids) => ({
    body: {
      projectId: ids.project!,
      name: 'Made by CLI',
      slug: 'made-by-cli',
      defaultProviderId: openai,
      defaultModel: 'gpt-4o',
      credentialIds: [ids.credential!],
    },
  }),
  updateGateway: (ids) => ({ params: { id: ids.gateway! }, body: { name: 'Renamed by CLI' } }),
  deleteGateway: (ids) => ({ params: { id: ids.gatewayToDelete! } }),
  attachGatewayCredential: (ids) => ({ params: { id: ids.gateway! }, body: { credentialId: anthropicCredential } }),
  detachGatewayCredential: (ids) => ({ params: { id: ids.gatewayTwoCredentials!, credentialId: ids.credential2! } }),
  updateGatewaySettings: (ids) => ({ params: { id: ids.gateway! }, body: { requestsPerMinute: 600, window: 'hour' } }),
  getOtelExport: (ids) => ({ params: { id: ids.gateway! } }),
  updateOtelExport: (ids) => ({
    params: { id: ids.gateway! },
    body: { enabled: true, endpoint: 'https://otel.example.com', headers: { Authorization: sentSecrets.otelHeader } },
  }),
  listGatewayTokens: (ids) => ({ params: { id: ids.gateway! }, as: 'serviceAccount' }),
  createGatewayToken: (ids) => ({ params: { id: ids.gateway! }, body: { name: 'made-by-cli', scopes: ['run', 'read_logs'] } }),
  renameGatewayToken: (ids) => ({ params: { id: ids.gateway!, tokenId: ids.tokenToRename! }, body: { name: 'renamed-by-cli' } }),
  revokeGatewayToken: (ids) => ({ params: { id: ids.gateway!, tokenId: ids.tokenToRevoke! } }),
  deleteGatewayToken: (ids) => ({ params: { id: ids.gateway!, tokenId: ids.tokenToDelete! } }),
  listGatewayLogs: () => ({ params: { id: seededGateway, status: 'success', limit: '5' }, as: 'serviceAccount' }),
  getGatewayLog: (ids) => ({ params: { id: seededGateway, logId: ids.log! }, as: 'serviceAccount' }),
  listGatewayKeyAccess: () => ({ params: { id: seededGateway, outcome: 'granted', limit: '5' }, as: 'serviceAccount' }),
  listUsageLogs: () => ({ params: { projectId: seededProject, limit: '5' } }),
  getUsageLog: (ids) => ({ params: { logId: ids.log!, projectId: seededProject } }),
  getUsageSpend: () => ({ params: { projectId: seededProject } }),
  getUsageMetrics: () => ({ params: { projectId: seededProject, bucket: 'day' } }),
  listServiceAccounts: () => ({ params: { accountId: acme } }),
  grantServiceAccount: (ids) => ({
    params: { id: ciDeployer },
    body: { recordId: ids.recordToShare!, wrappedDek: ids[`wrapToShare:${ciDeployer}`]! },
  }),
  deleteGroup: () => ({ params: { groupId: platformGroup } }),
  grantProjectGroupRole: () => ({ params: { id: seededProject, groupId: auditorsGroup }, body: { roleId: readerRole } }),
};

/** `cplane api` arguments of a call. */
export function cliArgs(operation: OperationName, call: Call): string[] {
  const args = ['api', operation];
  for (const [name, value] of Object.entries(call.params ?? {})) args.push('--param', `${name}=${value}`);
  if (call.body !== undefined) args.push('--body', JSON.stringify(call.body));
  return args;
}
