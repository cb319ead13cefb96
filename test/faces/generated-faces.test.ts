// The pure parts of the generated faces: redaction of what is printed, the checks made before sending, and the
// facts every face derives from the table (names, hints, input schemas without clashes).
import { describe, expect, it } from 'vitest';
import { operationFacts } from '../../src/api/operation-docs.js';
import { operationNames, operations } from '../../src/api/operations.js';
import { createClient } from '../../src/api/client.js';
import { checkRequest } from '../../src/faces/request-check.js';
import { REDACTED, safeFaceText, writeOnlyValues } from '../../src/faces/safe-text.js';
import { operationTool, toolName } from '../../src/faces/mcp-tools.js';

describe('safeFaceText', () => {
  it('redacts control-plane tokens and the secrets given, raw and JSON-escaped, longest first', () => {
    const secret = 'pa"ss\\word-123';
    const text = `token sk-svc-pat-abc.DEF_9 and sk-svc-sa-x1; ${secret}; ${JSON.stringify({ secret })}; part pa"ss`;
    expect(safeFaceText(text, [secret, 'pa"ss'])).toBe(
      `token ${REDACTED} and ${REDACTED}; ${REDACTED}; {"secret":"${REDACTED}"}; part pa"ss`,
    );
  });

  it('leaves values too short to hide anything, and the bare prefixes of error messages', () => {
    expect(safeFaceText('a token (sk-svc-sa-) or (sk-svc-pat-); abc', ['abc'])).toBe('a token (sk-svc-sa-) or (sk-svc-pat-); abc');
  });

  it('finds the write-only values of a body from the table: provider secrets and OTel header values', () => {
    expect(writeOnlyValues(operations.createCredential.body, { providerId: 'p', label: 'l', secret: 'sk-provider' })).toEqual([
      'sk-provider',
    ]);
    expect(
      writeOnlyValues(operations.updateOtelExport.body, { enabled: true, headers: { Authorization: 'Bearer h', 'X-Key': 'k2' } }).sort(),
    ).toEqual(['Bearer h', 'k2']);
    expect(writeOnlyValues(operations.createProject.body, { accountId: 'a', name: 'n', description: 'd' })).toEqual([]);
    expect(writeOnlyValues(operations.createCredential.body, undefined)).toEqual([]);
  });
});

describe('checkRequest', () => {
  const id = '1a000000-0000-4000-8000-000000000001';

  it('splits parameters into path and typed query parameters', () => {
    expect(checkRequest('listProjectRecords', { projectId: id, limit: '5', includeArchived: 'true' }, undefined)).toEqual({
      path: { projectId: id },
      query: { limit: 5, includeArchived: true },
      body: undefined,
      problems: [],
    });
  });

  it('names every problem, without quoting a value', () => {
    const checked = checkRequest('rotateCredential', { idd: id, limit: '999' }, { secret: '', extra: 'sk-do-not-echo' });
    expect(checked.problems).toEqual([
      'unknown parameter "idd"; did you mean "id"? (rotateCredential takes id)',
      'unknown parameter "limit" (rotateCredential takes id)',
      'missing path parameter "id" (/provider-credentials/{id}/rotate)',
      'body: unknown member "extra"',
      'body/secret: must NOT have fewer than 1 characters',
    ]);
    expect(checked.problems.join('\n')).not.toContain('sk-do-not-echo');
    expect(checkRequest('listAccounts', { limit: '1' }, {}).problems).toEqual([
      'listAccounts takes no parameters, not "limit"',
      'listAccounts takes no body',
    ]);
    expect(checkRequest('createProject', {}, undefined).problems).toEqual([
      'createProject needs a body (see `cplane api createProject --help`)',
    ]);
    expect(checkRequest('listProjects', { limit: '0' }, undefined).problems).toEqual(['query/limit: must be >= 1']);
  });
});

describe('facts derived from the table', () => {
  it('has a one-line summary for each operation', () => {
    for (const name of operationNames) expect(operations[name].summary, name).toMatch(/^[A-Z][^\n]{5,120}\.$/);
  });

  it('marks reads read-only, and every write that is not only additive destructive (an update or a rotation replaces for good)', () => {
    const readOnly = operationNames.filter((name) => operationFacts(name).readOnly);
    expect(readOnly).toEqual(operationNames.filter((name) => operations[name].method === 'GET' || name === 'readRecord'));
    const destructive = operationNames.filter((name) => operationFacts(name).destructive);
    // By the rule, not by a list a new operation must join: every DELETE and PATCH, and what revokes, rotates,
    // rolls back or transfers; never a create, an attachment, a share or a grant.
    expect(destructive).toEqual(
      operationNames.filter(
        (name) => ['DELETE', 'PATCH'].includes(operations[name].method) || /^(delete|revoke|rotate|rollback|transfer)[A-Z]/.test(name),
      ),
    );
    expect(destructive.filter((name) => /^(create|attach|share|grant)[A-Z]/.test(name))).toEqual([]);
    expect(destructive).toEqual(
      expect.arrayContaining([
        'deleteCredential',
        'deleteGateway',
        'detachGatewayCredential',
        'revokeGatewayToken',
        'deleteGatewayToken',
        'deleteGroup',
        'revokeRecordUser',
        'revokeRecordGroup',
        'revokeRecordServiceAccount',
        'archiveProject',
        'archiveRecord',
        'renameGatewayToken',
        'updateCredential',
        'updateGateway',
        'updateGatewaySettings',
        'updateOtelExport',
        'updateProject',
        'updateRecord',
        'rotateCredential',
        'rotateRecord',
        'rollbackRecord',
        'transferRecordOwnership',
      ]),
    );
  });

  it('gives every MCP tool a distinct snake_case name and an input schema whose names do not clash', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: 'sk-svc-pat-unit' });
    const tools = operationNames.map((name) =>
      operationTool(name, { client, baseUrl: 'http://127.0.0.1:9', token: 'sk-svc-pat-unit', account: undefined, env: {} }),
    );
    expect(new Set(tools.map((t) => t.name)).size).toBe(operationNames.length);
    expect(toolName('listGatewayKeyAccess')).toBe('list_gateway_key_access');
    for (const name of operationNames) {
      const facts = operationFacts(name);
      const queryNames = Object.keys((facts.spec.query as { properties?: object } | undefined)?.properties ?? {});
      const inputs = [...facts.pathParams, ...queryNames, 'body', 'allPages', 'idempotencyKey'];
      expect(new Set(inputs).size, name).toBe(inputs.length);
    }
    void client.close();
  });
});
