// Every operation of the table, driven by the real client over HTTP against the emulator: one success
// (whose data must match the operation's result schema) and one failure with the spec's status and reason.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, operationNames, operations, type ApiClient, type OperationName } from '../../src/api/index.js';
import { fixtures, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { kindCases, operationExamples, requestOf } from '../helpers/kind-cases.js';
import { placeOf, wrapperFor } from '../helpers/readers.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

const [acme, staging, globex] = fixtures.accounts.map((a) => a.id) as [string, string, string];
const seededProject = fixtures.projects[0]!.id;
const seededRecord = fixtures.records[0]!.id;
const seededGateway = fixtures.gateways[0]!.id;
const [openai, anthropic] = fixtures.providers.map((p) => p.id) as [string, string];
const anthropicCredential = fixtures.credentials[1]!.id;
const globexRecord = fixtures.records[3]!.id;
const globexGateway = fixtures.gateways[2]!.id;
const dana = fixtures.users[2]!.id;
const platformGroup = fixtures.groups[0]!.id;
const auditorsGroup = fixtures.groups[1]!.id;
const globexGroup = fixtures.groups[3]!.id;
const ciDeployer = fixtures.serviceAccounts[0]!.id;
const legacyBot = fixtures.serviceAccounts[1]!.id;
const adminRole = fixtures.roles[0]!.id;
const readerRole = fixtures.roles[1]!.id;
const value = (n: number) => ({
  ciphertext: Buffer.from(`ciphertext ${n}`).toString('base64'),
  wrapper: { alg: 'xchacha20poly1305', keyId: 'user:ada', wrappedDek: `dek-${n}` },
});
const missing = '99999999-9999-4999-8999-999999999999';
/** A wrapper that opens with the reader's fixture key, for the record's current version (the emulator checks both). */
const wrapped = async (recordId: string, readerId: string) => wrapperFor(await placeOf(admin, recordId), readerId);

let emulator: RunningEmulator;
let admin: ApiClient;
let reader: ApiClient;
let sa: ApiClient;
/** Objects created once for the scenarios below. */
const made: Record<string, string> = {};

beforeAll(async () => {
  emulator = await startEmulator();
  const base = { baseUrl: emulator.url, accountId: acme, retry: { maxAttempts: 1 } };
  admin = createClient({ ...base, token: fixtures.tokens.admin });
  reader = createClient({ ...base, token: fixtures.tokens.reader });
  sa = createClient({ ...base, token: fixtures.tokens.serviceAccount });
  made.project = (
    await admin.call('createProject', { body: { accountId: acme, name: 'ops-test', description: 'for every-operation' } })
  ).project_id;
  made.record = (await admin.call('createRecord', { body: { projectId: made.project, name: 'ops-record', value: value(1) } })).record_id;
  await admin.call('createRecordVersion', { path: { id: made.record }, body: value(2) });
  made.credential = (
    await admin.call('createCredential', { body: { providerId: openai, label: 'ops-openai', secret: 'sk-openai-test-secret' } })
  ).credential_id;
  made.credential2 = (
    await admin.call('createCredential', { body: { providerId: anthropic, label: 'ops-anthropic', secret: 'sk-ant-test-secret' } })
  ).credential_id;
  made.gateway = (
    await admin.call('createGateway', {
      body: {
        projectId: made.project,
        name: 'Ops',
        slug: 'ops-gw',
        defaultProviderId: openai,
        defaultModel: 'gpt-4o',
        credentialIds: [made.credential],
      },
    })
  ).gateway_id;
  made.token = (
    await admin.call('createGatewayToken', { path: { id: made.gateway }, body: { name: 'ops-token', scopes: ['run'] } })
  ).token_id;
  const logs = await admin.call('listGatewayLogs', { path: { id: seededGateway }, query: { limit: 1 } });
  made.log = logs[0]!.log_id;
  const globexLogs = await createClient({ ...base, token: fixtures.tokens.otherAccountAdmin, accountId: globex }).call('listGatewayLogs', {
    path: { id: globexGateway },
    query: { limit: 1 },
  });
  made.globexLog = globexLogs[0]!.log_id;
  for (const k of kindCases) await k.arrange?.(admin, made);
});

afterAll(async () => {
  await Promise.all([admin.close(), reader.close(), sa.close()]);
  await emulator.close();
});

type Step = () => Promise<unknown>;
interface Scenario {
  success: Step;
  failure: Step;
  /** Expected status and reason of the failure. */
  expect: [number, string];
}

/** The examples of test/kinds/ as scenarios, through the client with the call's token. */
const clientOf = (as: 'admin' | 'serviceAccount' | undefined) => (as === 'serviceAccount' ? sa : admin);
const kindScenarios = Object.fromEntries(
  Object.entries(operationExamples).map(([name, example]): [string, Scenario] => {
    const send = (call: ReturnType<typeof example.call>) =>
      clientOf(call.as).call(name as OperationName, requestOf(operations[name as OperationName].path, call) as never);
    return [
      name,
      { success: () => send(example.call(made)), failure: () => send(example.failure.call(made)), expect: example.failure.expect },
    ];
  }),
);

const scenarios: Record<OperationName, Scenario> = {
  ...(kindScenarios as Record<OperationName, Scenario>),
  listAccounts: {
    success: () => admin.call('listAccounts', {}),
    failure: () =>
      createClient({ baseUrl: emulator.url, token: fixtures.tokens.expired, retry: { maxAttempts: 1 } }).call('listAccounts', {}),
    expect: [401, 'pat_expired'],
  },
  listProjects: {
    success: () => admin.call('listProjects', { query: { includeArchived: true } }),
    failure: () => admin.call('listProjects', { query: { accountId: staging } }),
    expect: [403, 'not_authorized'],
  },
  getProject: {
    success: () => admin.call('getProject', { path: { id: seededProject } }),
    failure: () => admin.call('getProject', { path: { id: missing } }),
    expect: [404, 'project_not_found'],
  },
  createProject: {
    success: () => admin.call('createProject', { body: { accountId: acme, name: 'another', description: '' } }),
    failure: () => reader.call('createProject', { body: { accountId: acme, name: 'x', description: '' } }),
    expect: [403, 'insufficient_permission'],
  },
  updateProject: {
    success: () =>
      admin.call('updateProject', { path: { id: made.project! }, body: { name: 'ops-test', description: 'updated', isActive: true } }),
    failure: () => admin.call('updateProject', { path: { id: made.project! }, body: { description: 'no name' } as never }),
    expect: [400, 'Request validation failed'],
  },
  archiveProject: {
    success: () => admin.call('archiveProject', { path: { id: fixtures.projects[1]!.id }, body: { archived: false } }),
    failure: () => admin.call('archiveProject', { path: { id: seededProject }, body: { archived: false } }),
    expect: [409, 'project_not_archived'],
  },
  listRecords: {
    success: () => sa.call('listRecords', { query: { limit: 10 } }),
    failure: () => sa.call('listRecords', { query: { limit: 500 } }),
    expect: [400, 'Request validation failed'],
  },
  listProjectRecords: {
    success: () => admin.call('listProjectRecords', { path: { projectId: seededProject } }),
    failure: () => admin.call('listProjectRecords', { path: { projectId: fixtures.projects[3]!.id } }),
    expect: [403, 'not_authorized'],
  },
  getRecord: {
    success: () => sa.call('getRecord', { path: { id: seededRecord } }),
    failure: () => sa.call('getRecord', { path: { id: missing } }),
    expect: [404, 'record_not_found'],
  },
  readRecord: {
    success: () => admin.call('readRecord', { path: { id: made.record! }, body: { scope: ['meta', 'fields'] } }),
    failure: () => admin.call('readRecord', { path: { id: made.record! }, body: { scope: ['plaintext'] } as never }),
    expect: [400, 'Request validation failed'],
  },
  listRecordVersions: {
    success: () => admin.call('listRecordVersions', { path: { id: made.record! } }),
    failure: () => admin.call('listRecordVersions', { path: { id: globexRecord } }),
    expect: [403, 'not_authorized'],
  },
  listRecordAudit: {
    success: () => admin.call('listRecordAudit', { path: { id: made.record! }, query: { limit: 5 } }),
    failure: () => admin.call('listRecordAudit', { path: { id: 'not-a-uuid' } }),
    expect: [400, 'Request validation failed'],
  },
  listRecordAnomalies: {
    success: () => admin.call('listRecordAnomalies', { query: { scopeType: 'project', scopeId: seededProject } }),
    failure: () => admin.call('listRecordAnomalies', { query: { scopeType: 'project' } }),
    expect: [400, 'scope_id_required'],
  },
  listRecordActivity: {
    success: () => admin.call('listRecordActivity', { query: { scopeType: 'project', scopeId: seededProject } }),
    failure: () => admin.call('listRecordActivity', { query: { scopeType: 'project', scopeId: seededProject, day: '2026-13-45' } }),
    expect: [400, 'invalid_day'],
  },
  listRecordAlerts: {
    success: () => admin.call('listRecordAlerts', { query: { scopeType: 'account' } }),
    failure: () => admin.call('listRecordAlerts', { query: { scopeType: 'galaxy' } }),
    expect: [400, 'invalid_scope'],
  },
  listRecordAccess: {
    success: () => admin.call('listRecordAccess', { query: { scopeType: 'project', scopeId: seededProject, actions: 'read' } }),
    failure: () => admin.call('listRecordAccess', { query: { scopeType: 'project', scopeId: seededProject, actions: 'read,teleport' } }),
    expect: [400, 'invalid_actions'],
  },
  createRecord: {
    success: () => admin.call('createRecord', { body: { projectId: made.project!, name: 'second', tags: ['a'], value: value(3) } }),
    failure: () => admin.call('createRecord', { body: { projectId: missing, name: 'x' } }),
    expect: [404, 'project_not_found'],
  },
  createRecordVersion: {
    success: () => admin.call('createRecordVersion', { path: { id: made.record! }, body: value(4) }),
    failure: () => admin.call('createRecordVersion', { path: { id: made.record! }, body: { ciphertext: 'x' } as never }),
    expect: [400, 'Request validation failed'],
  },
  updateRecord: {
    success: () => admin.call('updateRecord', { path: { id: made.record! }, body: { tags: ['x'] } }),
    failure: () => admin.call('updateRecord', { path: { id: made.record! }, body: { name: 'second' } }),
    expect: [409, 'record_name_exists'],
  },
  archiveRecord: {
    success: () => admin.call('archiveRecord', { path: { id: fixtures.records[1]!.id }, body: { archived: true } }),
    failure: () => admin.call('archiveRecord', { path: { id: seededRecord }, body: { archived: false } }),
    expect: [409, 'record_not_archived'],
  },
  rollbackRecord: {
    success: () => admin.call('rollbackRecord', { path: { id: seededRecord }, body: { version: 1 } }),
    failure: () => admin.call('rollbackRecord', { path: { id: seededRecord }, body: { version: 99 } }),
    expect: [404, 'version_not_found'],
  },
  rotateRecord: {
    success: () => admin.call('rotateRecord', { path: { id: seededRecord }, body: value(5) }),
    failure: () => reader.call('rotateRecord', { path: { id: seededRecord }, body: value(5) }),
    expect: [403, 'insufficient_permission'],
  },
  shareRecordWithUser: {
    success: async () =>
      admin.call('shareRecordWithUser', {
        path: { id: seededRecord },
        body: { userId: dana, wrappedDek: await wrapped(seededRecord, dana) },
      }),
    failure: () =>
      admin.call('shareRecordWithUser', { path: { id: seededRecord }, body: { userId: fixtures.users[3]!.id, wrappedDek: 'x' } }),
    expect: [400, 'target_not_a_member'],
  },
  shareRecordWithGroup: {
    success: async () =>
      admin.call('shareRecordWithGroup', {
        path: { id: seededRecord },
        body: { groupId: auditorsGroup, wrappedDek: await wrapped(seededRecord, auditorsGroup) },
      }),
    failure: () => admin.call('shareRecordWithGroup', { path: { id: seededRecord }, body: { groupId: globexGroup, wrappedDek: 'x' } }),
    expect: [403, 'not_authorized'],
  },
  revokeRecordUser: {
    success: () => admin.call('revokeRecordUser', { path: { id: seededRecord }, body: { userId: dana } }),
    failure: () => admin.call('revokeRecordUser', { path: { id: seededRecord }, body: { userId: dana } }),
    expect: [409, 'direct_grant_not_found'],
  },
  revokeRecordGroup: {
    success: () => admin.call('revokeRecordGroup', { path: { id: seededRecord }, body: { groupId: auditorsGroup } }),
    failure: () => admin.call('revokeRecordGroup', { path: { id: seededRecord }, body: { groupId: missing } }),
    expect: [404, 'group_not_found'],
  },
  revokeRecordServiceAccount: {
    success: async () => {
      await admin.call('grantServiceAccount', {
        path: { id: ciDeployer },
        body: { recordId: made.record!, wrappedDek: await wrapped(made.record!, ciDeployer) },
      });
      return admin.call('revokeRecordServiceAccount', { path: { id: made.record! }, body: { serviceAccountId: ciDeployer } });
    },
    failure: () => admin.call('revokeRecordServiceAccount', { path: { id: made.record! }, body: { serviceAccountId: ciDeployer } }),
    expect: [409, 'service_account_grant_not_found'],
  },
  listProviders: {
    success: () => sa.call('listProviders', {}),
    failure: () =>
      createClient({ baseUrl: emulator.url, token: 'sk-svc-sa-no-such-token', retry: { maxAttempts: 1 } }).call('listProviders', {}),
    expect: [401, 'invalid_pat'],
  },
  listCredentials: {
    success: () => admin.call('listCredentials', { query: { includeRevoked: true } }),
    failure: () => admin.call('listCredentials', {}, { accountId: globex }),
    expect: [403, 'not_account_member'],
  },
  createCredential: {
    success: () =>
      admin.call('createCredential', {
        body: { providerId: anthropic, label: 'extra', baseUrl: 'https://proxy.example.com/v1', secret: 'sk-extra-secret' },
      }),
    failure: () =>
      admin.call('createCredential', {
        body: { providerId: openai, label: 'local', baseUrl: 'https://127.0.0.1/v1', secret: 'sk-local-secret' },
      }),
    expect: [400, 'base_url_not_allowed'],
  },
  listCredentialModels: {
    success: () => admin.call('listCredentialModels', { path: { id: made.credential! } }),
    failure: () => admin.call('listCredentialModels', { path: { id: missing } }),
    expect: [404, 'credential_not_found'],
  },
  rotateCredential: {
    success: () => admin.call('rotateCredential', { path: { id: made.credential! }, body: { secret: 'sk-rotated-secret' } }),
    failure: () => admin.call('rotateCredential', { path: { id: made.credential! }, body: { secret: 'short' } }),
    expect: [400, 'provider_key_rejected'],
  },
  updateCredential: {
    success: () => admin.call('updateCredential', { path: { id: made.credential! }, body: { label: 'renamed' } }),
    failure: () => admin.call('updateCredential', { path: { id: made.credential! }, body: { baseUrl: 'http://api.example.com' } }),
    expect: [400, 'base_url_not_allowed'],
  },
  deleteCredential: {
    success: async () => {
      const extra = await admin.call('createCredential', {
        body: { providerId: openai, label: 'to-delete', secret: 'sk-delete-me-secret' },
      });
      made.revokedCredential = extra.credential_id;
      return admin.call('deleteCredential', { path: { id: extra.credential_id } });
    },
    failure: () => admin.call('deleteCredential', { path: { id: made.revokedCredential! } }),
    expect: [409, 'credential_revoked'],
  },
  listGateways: {
    success: () => admin.call('listGateways', { query: { includeDisabled: true } }),
    failure: () => admin.call('listGateways', { query: { projectId: fixtures.projects[3]!.id } }),
    expect: [403, 'not_authorized'],
  },
  getGateway: {
    success: () => sa.call('getGateway', { path: { id: seededGateway } }),
    failure: () => sa.call('getGateway', { path: { id: globexGateway } }),
    expect: [403, 'not_authorized'],
  },
  createGateway: {
    success: () =>
      admin.call('createGateway', {
        body: {
          projectId: made.project!,
          name: 'Second',
          slug: 'second-gw',
          defaultProviderId: anthropic,
          defaultModel: 'claude-sonnet-4',
          credentialIds: [made.credential2!],
        },
      }),
    failure: () =>
      admin.call('createGateway', {
        body: {
          projectId: made.project!,
          name: 'Bad',
          slug: 'Bad_Slug',
          defaultProviderId: openai,
          defaultModel: 'gpt-4o',
          credentialIds: [made.credential!],
        },
      }),
    expect: [400, 'invalid_slug'],
  },
  updateGateway: {
    success: () => admin.call('updateGateway', { path: { id: made.gateway! }, body: { name: 'Ops renamed' } }),
    failure: () => admin.call('updateGateway', { path: { id: made.gateway! }, body: { slug: 'payments' } }),
    expect: [409, 'gateway_slug_exists'],
  },
  deleteGateway: {
    success: async () => {
      const g = await admin.call('createGateway', {
        body: {
          projectId: made.project!,
          name: 'Doomed',
          slug: 'doomed',
          defaultProviderId: openai,
          defaultModel: 'gpt-4o',
          credentialIds: [made.credential!],
        },
      });
      made.deletedGateway = g.gateway_id;
      return admin.call('deleteGateway', { path: { id: g.gateway_id } });
    },
    failure: () => admin.call('deleteGateway', { path: { id: made.deletedGateway! } }),
    expect: [409, 'gateway_disabled'],
  },
  attachGatewayCredential: {
    success: () => admin.call('attachGatewayCredential', { path: { id: made.gateway! }, body: { credentialId: anthropicCredential } }),
    failure: () =>
      admin.call('attachGatewayCredential', { path: { id: made.gateway! }, body: { credentialId: fixtures.credentials[3]!.id } }),
    expect: [403, 'not_authorized'],
  },
  detachGatewayCredential: {
    success: () => admin.call('detachGatewayCredential', { path: { id: made.gateway!, credentialId: anthropicCredential } }),
    failure: () => admin.call('detachGatewayCredential', { path: { id: made.gateway!, credentialId: made.credential! } }),
    expect: [409, 'last_credential'],
  },
  updateGatewaySettings: {
    success: () => admin.call('updateGatewaySettings', { path: { id: made.gateway! }, body: { requestsPerMinute: 600, window: 'hour' } }),
    failure: () => admin.call('updateGatewaySettings', { path: { id: made.gateway! }, body: { window: 'fortnight' } as never }),
    expect: [400, 'Request validation failed'],
  },
  getOtelExport: {
    success: () => admin.call('getOtelExport', { path: { id: made.gateway! } }),
    failure: () => reader.call('getOtelExport', { path: { id: globexGateway } }),
    expect: [403, 'not_authorized'],
  },
  updateOtelExport: {
    success: () =>
      admin.call('updateOtelExport', {
        path: { id: made.gateway! },
        body: { enabled: true, endpoint: 'https://otel.example.com', headers: { Authorization: 'Bearer otel-secret' } },
      }),
    failure: () => admin.call('updateOtelExport', { path: { id: seededGateway }, body: { enabled: true } }),
    expect: [400, 'endpoint_required'],
  },
  listGatewayTokens: {
    success: () => sa.call('listGatewayTokens', { path: { id: made.gateway! } }),
    failure: () => sa.call('listGatewayTokens', { path: { id: missing } }),
    expect: [404, 'gateway_not_found'],
  },
  createGatewayToken: {
    success: () =>
      admin.call('createGatewayToken', {
        path: { id: made.gateway! },
        body: { name: 'ci', scopes: ['run', 'read_logs'], expiresInDays: 30, serviceAccountId: ciDeployer },
      }),
    failure: () =>
      admin.call('createGatewayToken', { path: { id: made.gateway! }, body: { name: 'ci', scopes: ['run'], serviceAccountId: legacyBot } }),
    expect: [409, 'service_account_inactive'],
  },
  renameGatewayToken: {
    success: () => admin.call('renameGatewayToken', { path: { id: made.gateway!, tokenId: made.token! }, body: { name: 'renamed' } }),
    failure: () => admin.call('renameGatewayToken', { path: { id: made.gateway!, tokenId: missing }, body: { name: 'renamed' } }),
    expect: [404, 'token_not_found'],
  },
  revokeGatewayToken: {
    success: () => admin.call('revokeGatewayToken', { path: { id: made.gateway!, tokenId: made.token! } }),
    failure: () => admin.call('revokeGatewayToken', { path: { id: made.gateway!, tokenId: made.token! } }),
    expect: [409, 'token_already_revoked'],
  },
  deleteGatewayToken: {
    success: () => admin.call('deleteGatewayToken', { path: { id: made.gateway!, tokenId: made.token! } }),
    failure: () => admin.call('deleteGatewayToken', { path: { id: made.gateway!, tokenId: made.token! } }),
    expect: [404, 'token_not_found'],
  },
  listGatewayLogs: {
    success: () => sa.call('listGatewayLogs', { path: { id: seededGateway }, query: { status: 'success', limit: 5 } }),
    failure: () => sa.call('listGatewayLogs', { path: { id: seededGateway }, query: { status: 'meh' } }),
    expect: [400, 'invalid_filter'],
  },
  getGatewayLog: {
    success: () => sa.call('getGatewayLog', { path: { id: seededGateway, logId: made.log! } }),
    failure: () => sa.call('getGatewayLog', { path: { id: seededGateway, logId: missing } }),
    expect: [404, 'log_not_found'],
  },
  listGatewayKeyAccess: {
    success: () => sa.call('listGatewayKeyAccess', { path: { id: seededGateway }, query: { outcome: 'granted', limit: 5 } }),
    failure: () => sa.call('listGatewayKeyAccess', { path: { id: seededGateway }, query: { outcome: 'maybe' } }),
    expect: [400, 'invalid_outcome'],
  },
  listUsageLogs: {
    success: () => admin.call('listUsageLogs', { query: { projectId: seededProject, limit: 5 } }),
    failure: () => admin.call('listUsageLogs', { query: { projectId: 'payments' } }),
    expect: [400, 'invalid_filter'],
  },
  getUsageLog: {
    success: () => admin.call('getUsageLog', { path: { logId: made.log! }, query: { projectId: seededProject } }),
    failure: () => reader.call('getUsageLog', { path: { logId: made.log! } }),
    expect: [403, 'insufficient_permission'],
  },
  getUsageSpend: {
    success: () => admin.call('getUsageSpend', { query: { projectId: seededProject } }),
    failure: () => admin.call('getUsageSpend', { query: { projectId: seededProject, since: 'yesterday' } }),
    expect: [400, 'invalid_date'],
  },
  getUsageMetrics: {
    success: () => admin.call('getUsageMetrics', { query: { projectId: seededProject, bucket: 'day' } }),
    failure: () => admin.call('getUsageMetrics', { query: { bucket: 'fortnight' } }),
    expect: [400, 'invalid_bucket'],
  },
  listServiceAccounts: {
    success: () => admin.call('listServiceAccounts', { query: { accountId: acme } }),
    failure: () => admin.call('listServiceAccounts', {}, { accountId: missing }),
    expect: [403, 'not_account_member'],
  },
  grantServiceAccount: {
    success: async () =>
      admin.call('grantServiceAccount', {
        path: { id: ciDeployer },
        body: { recordId: seededRecord, wrappedDek: await wrapped(seededRecord, ciDeployer) },
      }),
    failure: () => admin.call('grantServiceAccount', { path: { id: legacyBot }, body: { recordId: seededRecord, wrappedDek: 'dek' } }),
    expect: [409, 'service_account_inactive'],
  },
  grantProjectGroupRole: {
    success: () =>
      admin.call('grantProjectGroupRole', { path: { id: seededProject, groupId: platformGroup }, body: { roleId: readerRole } }),
    failure: () => admin.call('grantProjectGroupRole', { path: { id: seededProject, groupId: platformGroup }, body: { roleId: missing } }),
    expect: [404, 'role_not_found'],
  },
  deleteGroup: {
    success: () => admin.call('deleteGroup', { path: { groupId: platformGroup } }),
    failure: () => admin.call('deleteGroup', { path: { groupId: platformGroup } }),
    expect: [404, 'group_not_found'],
  },
};

/** Every not-found reason of the table (a 404 with another reason, such as `version_not_found`, is not one). */
const declaredNotFound = new Set<string>(
  operationNames.flatMap((name) => (operations[name] as { notFound?: readonly string[] }).notFound ?? []),
);

describe('every operation against the emulator, through the client', () => {
  it('has a scenario for each operation of the table', () => {
    expect(Object.keys(scenarios).sort()).toEqual([...operationNames].sort());
  });

  for (const name of Object.keys(scenarios) as OperationName[]) {
    it(`${name}: succeeds with data matching its result schema, and fails with the spec's error`, async () => {
      const scenario = scenarios[name];
      const data = await scenario.success();
      const schema = (operations[name] as { result?: object }).result;
      if (schema) {
        const validate = ajv.compile(schema);
        expect(validate(data), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      } else {
        expect(data).toBeUndefined();
      }
      const error = await scenario.failure().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ApiError);
      const apiError = error as ApiError;
      expect([apiError.status, apiError.reason]).toEqual(scenario.expect);
      expect(apiError.requestId).toMatch(/^req_/);
      // A not-found reason the emulator answers is one the operation's entry declares (and so a refusal).
      if (apiError.status === 404 && declaredNotFound.has(apiError.reason))
        expect(apiError.objectNotFound, `${name}: ${apiError.reason}`).toBe(true);
    });
  }

  it('grantProjectGroupRole reports no change when the group already has the role', async () => {
    const again = await admin.call('grantProjectGroupRole', {
      path: { id: made.project!, groupId: auditorsGroup },
      body: { roleId: adminRole },
    });
    expect(again.changed).toBe(true);
    const same = await admin.call('grantProjectGroupRole', {
      path: { id: made.project!, groupId: auditorsGroup },
      body: { roleId: adminRole },
    });
    expect(same).toMatchObject({ changed: false, changes: [] });
  });

  it('gives every answer an x-request-id, and error bodies the same id', async () => {
    const res = await fetch(`${emulator.url}/v1/projects/${missing}`, {
      headers: { authorization: `Bearer ${fixtures.tokens.admin}`, 'x-account-id': acme },
    });
    const body = (await res.json()) as { requestId: string };
    expect(res.headers.get('x-request-id')).toBe(body.requestId);
  });
});
