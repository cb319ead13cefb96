/**
 * Request validation against the operation table (src/api/request-schemas.ts):
 * failures become 400 `Request validation failed` with one readable line per
 * problem.
 */
import { operations, type OperationName } from '../api/operations.js';
import { bodyProblems, isPathParam, queryProblems } from '../api/request-schemas.js';
import { invalid } from './errors.js';

/** Turns URLSearchParams into the operation's typed query object, or throws 400. */
export function validateQuery(name: OperationName, params: URLSearchParams): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, value] of params) {
    if (key in query) problems.push(`query: parameter "${key}" is given more than once`);
    query[key] = value;
  }
  if (problems.length) throw invalid(...problems);
  const wrong = queryProblems(name, query);
  if (wrong.length) throw invalid(...wrong);
  return query;
}

/** Parses and validates the body of an operation that has one, or throws 400. */
export function validateBody(name: OperationName, text: string): unknown {
  const spec = operations[name];
  if (!('body' in spec)) return undefined;
  if (text.trim() === '') throw invalid('body: a JSON body is required');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid('body: not valid JSON');
  }
  const wrong = bodyProblems(name, body);
  if (wrong.length) throw invalid(...wrong);
  return body;
}

/** Every path parameter of the table is an identifier: a uuid. */
export function validatePathParams(params: Record<string, string>): void {
  const problems = Object.entries(params)
    .filter(([, value]) => !isPathParam(value))
    .map(([name]) => `path: parameter "${name}" must be a uuid`);
  if (problems.length) throw invalid(...problems);
}

export const isUuid = isPathParam;
