// The cases a kind brings to the tests that cover every kind and every operation, in one file of its own:
// test/kinds/<kind>.ts exports `cases` (KindCases). Those tests find the files here, so a kind added by
// docs/architecture.md's recipe edits none of them; each still fails, naming the kind or the operation, when a
// case is missing. (The kinds from before keep their cases in the tables of those tests.)
import { readdirSync } from 'node:fs';
import type { ApiClient, OperationName } from '../../src/api/index.js';
import type { ResourceKind } from '../../src/config/types.js';
import type { Call, Ids } from '../faces/operation-calls.js';
import type { ConformanceCase } from '../providers/conformance-cases.js';

/** One operation shown twice: a call that succeeds, and one that fails with the spec's status and reason. */
export interface OperationExample {
  call(ids: Ids): Call;
  failure: { call(ids: Ids): Call; expect: [status: number, reason: string] };
}

export interface KindCases {
  kind: ResourceKind;
  /** Its walk through create, each change and remove (test/providers/conformance.test.ts). */
  conformance: ConformanceCase;
  /** Makes the objects its examples work on, through the client, adding their ids (every-operation, `cplane api`). */
  arrange?(admin: ApiClient, ids: Ids): Promise<void>;
  /** An example of each operation its entry in src/api/operations.ts adds. */
  operations: Partial<Record<OperationName, OperationExample>>;
}

const folder = new URL('../kinds/', import.meta.url);
const files = readdirSync(folder).filter((name) => name.endsWith('.ts'));

/** Every kind's cases from test/kinds/, in file name order. */
export const kindCases: readonly KindCases[] = await Promise.all(
  files.map(async (name) => ((await import(new URL(name, folder).href)) as { cases: KindCases }).cases),
);

/** Every operation example of test/kinds/, by operation. */
export const operationExamples: Partial<Record<OperationName, OperationExample>> = Object.assign({}, ...kindCases.map((k) => k.operations));

/** A call as the client takes it: its parameters split into the path's and the query's. */
export function requestOf(path: string, call: Call): { path?: Record<string, string>; query?: Record<string, string>; body?: unknown } {
  const inPath = new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));
  const params = Object.entries(call.params ?? {});
  const pathParams = Object.fromEntries(params.filter(([name]) => inPath.has(name)));
  const query = Object.fromEntries(params.filter(([name]) => !inPath.has(name)));
  return {
    ...(inPath.size > 0 ? { path: pathParams } : {}),
    ...(Object.keys(query).length > 0 ? { query } : {}),
    ...(call.body !== undefined ? { body: call.body } : {}),
  };
}
