// The operation table against the spec's catalogue: every operation, its method, path and identity.
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../src/errors.js';
import { ApiError, operationNames, operations } from '../../src/api/index.js';
import { routeFields } from '../../src/api/route.js';

/** The spec's "Catalog of the 59 public operations", row by row, plus the two group operations. */
const catalogue = [
  'GET /accounts H',
  'GET /projects H',
  'GET /projects/{id} H',
  'POST /projects H',
  'PATCH /projects/{id} H',
  'PATCH /projects/{id}/archive H',
  'GET /records SA',
  'GET /records/by-project/{projectId} SA',
  'GET /records/{id} SA',
  'POST /records/{id}/read SA',
  'GET /records/{id}/versions H',
  'GET /records/{id}/audit H',
  'GET /audit/record-anomalies H',
  'GET /audit/record-activity H',
  'GET /audit/record-alerts H',
  'GET /audit/record-access H',
  'POST /records H',
  'POST /records/{id}/version H',
  'PATCH /records/{id} H',
  'PATCH /records/{id}/archive H',
  'POST /records/{id}/transfer-ownership H',
  'POST /records/{id}/rollback H',
  'POST /records/{id}/rotate H',
  'POST /records/{id}/share/user H',
  'POST /records/{id}/share/group H',
  'POST /records/{id}/revoke/user H',
  'POST /records/{id}/revoke/group H',
  'POST /records/{id}/revoke/service-account H',
  'GET /providers SA',
  'GET /provider-credentials H',
  'POST /provider-credentials H',
  'GET /provider-credentials/{id}/models H',
  'POST /provider-credentials/{id}/rotate H',
  'PATCH /provider-credentials/{id} H',
  'DELETE /provider-credentials/{id} H',
  'GET /gateways H',
  'GET /gateways/{id} SA',
  'POST /gateways H',
  'PATCH /gateways/{id} H',
  'DELETE /gateways/{id} H',
  'POST /gateways/{id}/credentials H',
  'DELETE /gateways/{id}/credentials/{credentialId} H',
  'PATCH /gateways/{id}/settings H',
  'GET /gateways/{id}/otel-export H',
  'PATCH /gateways/{id}/otel-export H',
  'GET /gateways/{id}/tokens SA',
  'POST /gateways/{id}/tokens H',
  'PATCH /gateways/{id}/tokens/{tokenId} H',
  'DELETE /gateways/{id}/tokens/{tokenId}/revoke H',
  'DELETE /gateways/{id}/tokens/{tokenId} H',
  'GET /gateways/{id}/logs SA',
  'GET /gateways/{id}/logs/{logId} SA',
  'GET /gateways/{id}/key-access SA',
  'GET /usage/logs H',
  'GET /usage/logs/{logId} H',
  'GET /usage/spend H',
  'GET /usage/metrics H',
  'GET /service-accounts H',
  'POST /service-accounts/{id}/grants H',
  'DELETE /groups/{groupId} H',
  'POST /projects/{id}/group-grants/{groupId} H',
];

describe('operation table', () => {
  // Each catalogued operation once, with its method, path and identity; an operation beyond the spec's (a kind
  // added by docs/architecture.md's recipe) does not change these rows.
  const rows = operationNames.map((name) => {
    const op = operations[name];
    return `${op.method} ${op.path.replace(/\{\w+\}/g, '{}')} ${op.identity}`;
  });
  const expected = catalogue.map((row) => row.replace(/\{\w+\}/g, '{}'));

  it('describes each of the 59 catalogued operations and the two group operations once', () => {
    expect(rows.filter((row) => expected.includes(row)).sort()).toEqual(expected.sort());
  });

  it('accepts a Service Account on exactly 10 of the catalogued operations', () => {
    expect(rows.filter((row) => expected.includes(row) && row.endsWith(' SA'))).toHaveLength(10);
  });
});

describe('the route table and the schema table', () => {
  it('name the same operations, and every operation carries exactly its route', async () => {
    const { routeNames, routes } = await import('../../src/api/routes.js');
    expect(operationNames).toEqual(routeNames);
    const routeKeys: readonly string[] = routeFields;
    for (const name of operationNames) {
      const spec = operations[name] as Record<string, unknown>;
      const fromRoute = Object.fromEntries(Object.entries(spec).filter(([key]) => routeKeys.includes(key)));
      expect(fromRoute, name).toEqual(routes[name]);
      expect(
        Object.keys(spec)
          .filter((key) => !routeKeys.includes(key))
          .every((key) => ['summary', 'notFound', 'query', 'body', 'result'].includes(key)),
        name,
      ).toBe(true);
    }
  });
});

describe("the spec's not-found reasons", () => {
  // The operations' `notFound` is the one list: the client marks a 404 with a declared reason, and classifyError
  // (below api/, so it cannot read the table) reads that mark.
  const answer = (operation: 'getProject' | 'getGateway', reason: string) =>
    new ApiError(operation, 404, 'not_found', reason, undefined, 'req_1', 1);

  it('are a refusal when the operation declares them, and a failure otherwise', () => {
    expect(classifyError(answer('getProject', 'project_not_found'))).toBe('refused');
    expect(classifyError(answer('getGateway', 'gateway_not_found'))).toBe('refused');
    // Another operation's reason, or a wrong base URL, is not "the object is gone".
    expect(classifyError(answer('getProject', 'gateway_not_found'))).toBe('rejected');
    expect(classifyError(answer('getProject', 'route_not_found'))).toBe('rejected');
  });

  it('are declared by every operation whose path names an object', () => {
    for (const name of operationNames) {
      const { path, notFound } = operations[name] as { path: string; notFound?: readonly string[] };
      if (/\{\w+\}/.test(path) && name !== 'grantServiceAccount') expect(notFound?.length, name).toBeGreaterThan(0);
    }
  });
});
