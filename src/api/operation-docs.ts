/**
 * What people and tools read about each operation of the table in operations.ts, beside its wire shape: its
 * summary, the names of its path parameters, and whether it only reads or removes (derived from its method and
 * verb, so a new operation needs no entry here). The faces generated from the table (`cplane api`, the MCP tools,
 * the OpenAPI document) all take these facts from here, so no face has per-operation code.
 */
import { operations, type OperationName, type OperationSpec } from './operations.js';
import { pathParamNames } from './route.js';

export { pathParamNames };

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
    summary: spec.summary,
    pathParams: pathParamNames(spec.path),
    readOnly: isReadOnly(name),
    destructive: isDestructive(name),
  };
}
