/**
 * What people and tools read about each operation of the table in
 * operations.ts, beside its wire shape: a one-line summary, the names and
 * schema of its path parameters, and whether it only reads or removes. The
 * faces generated from the table (`cplane api`, the MCP tools, the OpenAPI
 * document) all take these facts from here, so no face has per-operation code.
 */
import { operations, type OperationName, type OperationSpec } from './operations.js';

/** One line each; `satisfies` makes a missing or misspelled operation a compile error. */
export const operationSummaries = {
  listAccounts: 'List the accounts the caller belongs to.',
  listProjects: 'List the projects of the account (archived ones with includeArchived=true).',
  getProject: 'Read one project.',
  createProject: 'Create a project in the account.',
  updateProject: 'Replace the name, description and active flag of a project.',
  archiveProject: 'Archive a project, or unarchive it with archived=false.',
  listRecords: 'List the metadata of the records of the account.',
  listProjectRecords: 'List the metadata of the records of one project.',
  getRecord: 'Read the metadata of one record.',
  readRecord: 'Read sections of a record (metadata and encrypted fields); never plaintext.',
  listRecordVersions: 'List the value versions of a record.',
  listRecordAudit: 'Read the audit feed of one record.',
  listRecordAnomalies: 'Read the record anomalies of a project or the account.',
  listRecordActivity: 'Read one day of record activity counts of a project or the account.',
  listRecordAlerts: 'Read the record alerts of a project or the account.',
  listRecordAccess: 'Read the record access events of a project or the account.',
  createRecord: 'Create a record, or upsert its metadata by project and name, with an optional encrypted value.',
  createRecordVersion: 'Add a new encrypted value version to a record.',
  updateRecord: "Change a record's name, tags, due date or rotation interval (not its value).",
  archiveRecord: 'Archive a record, or unarchive it with archived=false.',
  transferRecordOwnership: 'Make another member of the account the owner of a record.',
  rollbackRecord: 'Make an earlier value version of a record current again.',
  rotateRecord: 'Rotate a record: a new encrypted value under a new data key.',
  shareRecordWithUser: "Share a record with a user, with its data key wrapped for the user's key (docs/access.md).",
  shareRecordWithGroup: "Share a record with a group, with its data key wrapped for the group's key (docs/access.md).",
  revokeRecordUser: "Remove a user's direct grant on a record.",
  revokeRecordGroup: "Remove a group's grant on a record.",
  revokeRecordServiceAccount: "Remove a Service Account's key on a record.",
  listProviders: 'List the AI providers and their models.',
  listCredentials: 'List the provider credentials of the account (revoked ones with includeRevoked=true).',
  createCredential: 'Create a provider credential; its secret is write-only.',
  listCredentialModels: 'List the models a provider credential can reach.',
  rotateCredential: 'Replace the secret of a provider credential.',
  updateCredential: 'Change the label or base URL of a provider credential.',
  deleteCredential: 'Revoke a provider credential.',
  listGateways: 'List the AI gateways of the account (disabled ones with includeDisabled=true).',
  getGateway: 'Read one gateway, with its credentials, settings and endpoints.',
  createGateway: 'Create a gateway in a project with its provider credentials.',
  updateGateway: "Change a gateway's name, slug, default provider or default model.",
  deleteGateway: 'Disable a gateway and revoke its tokens; request history is kept.',
  attachGatewayCredential: 'Attach a provider credential to a gateway.',
  detachGatewayCredential: 'Detach a provider credential from a gateway.',
  updateGatewaySettings: "Change any part of a gateway's limits, guardrails and cache settings.",
  getOtelExport: "Read a gateway's OpenTelemetry export settings (header names only).",
  updateOtelExport: "Change a gateway's OpenTelemetry export; header values are write-only.",
  listGatewayTokens: 'List the tokens of a gateway (metadata and prefix only).',
  createGatewayToken: 'Create a gateway token; its plaintext is returned once, in this result only.',
  renameGatewayToken: 'Rename a gateway token.',
  revokeGatewayToken: 'Revoke a gateway token; its metadata is kept.',
  deleteGatewayToken: 'Delete a gateway token row.',
  listGatewayLogs: 'List the request logs of a gateway.',
  getGatewayLog: 'Read one request log of a gateway (bodies need usage:read-bodies).',
  listGatewayKeyAccess: 'List the provider-key access events of a gateway.',
  listUsageLogs: 'List the request logs of the account, a project or a gateway.',
  getUsageLog: 'Read the stored request and response bodies of one log.',
  getUsageSpend: 'Read the spend of a project since a date, by gateway.',
  getUsageMetrics: 'Read usage metrics of the account or a project, by day or hour.',
  listServiceAccounts: 'List the Service Accounts of the account (safe metadata only).',
  grantServiceAccount: "Grant a record to a Service Account, its data key wrapped for the account's public_key (docs/access.md).",
  deleteGroup: 'Delete a group and reconcile the access it gave.',
  grantProjectGroupRole: 'Give a group a role on a project.',
} as const satisfies Record<OperationName, string>;

/** `/gateways/{id}/tokens/{tokenId}` -> ['id', 'tokenId']. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** The verb an operation name starts with: `listGatewayTokens` -> `list`. */
const verbOf = (name: string): string => /^[a-z]+/.exec(name)?.[0] ?? '';

/**
 * Reads change nothing: every GET, and `readRecord`, a POST only because its
 * section list travels in a body. The rule is on the verb so a new operation
 * needs no entry here.
 */
export function isReadOnly(name: OperationName): boolean {
  return operations[name].method === 'GET' || ['list', 'get', 'read'].includes(verbOf(name));
}

/**
 * Writes that are not only additive (MCP's destructiveHint: "false: the tool performs only additive updates"):
 * what removes or revokes, what overwrites (every PATCH: an update, an archive, a rename), and what replaces a
 * value for good or moves it away (a rotation, a rollback, an ownership transfer). Creating, attaching, granting,
 * sharing and a new record version add.
 */
export function isDestructive(name: OperationName): boolean {
  const { method } = operations[name];
  return method === 'DELETE' || method === 'PATCH' || ['delete', 'revoke', 'rotate', 'rollback', 'transfer'].includes(verbOf(name));
}

/** What one operation is, for the generated faces. */
export interface OperationFacts {
  name: OperationName;
  spec: OperationSpec;
  summary: string;
  pathParams: string[];
  readOnly: boolean;
  destructive: boolean;
}

export function operationFacts(name: OperationName): OperationFacts {
  const spec: OperationSpec = operations[name];
  return {
    name,
    spec,
    summary: operationSummaries[name],
    pathParams: pathParamNames(spec.path),
    readOnly: isReadOnly(name),
    destructive: isDestructive(name),
  };
}
