/**
 * Request validation compiled from the TypeBox schemas of the operation table:
 * query strings are coerced to their declared types (`limit=5` -> 5,
 * `includeArchived=true` -> true), bodies are checked as sent. Failures become
 * 400 `Request validation failed` with one readable line per problem.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { operations, type OperationName } from '../api/operations.js';
import { invalid } from './errors.js';

// ajv-formats is CommonJS: at run time the default import is the plugin function itself, which its typings do not say under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const bodyAjv = new Ajv({ allErrors: true, strict: false });
const queryAjv = new Ajv({ allErrors: true, strict: false, coerceTypes: true });
addFormats(bodyAjv);
addFormats(queryAjv);

const noQuery = { type: 'object', additionalProperties: false, properties: {} };
const queryValidators = new Map<OperationName, ValidateFunction>();
const bodyValidators = new Map<OperationName, ValidateFunction>();

function describe(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    const at = `${where}${e.instancePath}`;
    if (e.keyword === 'additionalProperties') return `${at}: unknown member "${String(e.params['additionalProperty'])}"`;
    if (e.keyword === 'required') return `${at}: missing required member "${String(e.params['missingProperty'])}"`;
    return `${at}: ${e.message ?? 'is invalid'}`;
  });
}

/** Turns URLSearchParams into the operation's typed query object, or throws 400. */
export function validateQuery(name: OperationName, params: URLSearchParams): Record<string, unknown> {
  let validate = queryValidators.get(name);
  if (!validate) {
    const spec = operations[name];
    validate = queryAjv.compile('query' in spec ? spec.query : noQuery);
    queryValidators.set(name, validate);
  }
  const query: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, value] of params) {
    if (key in query) problems.push(`query: parameter "${key}" is given more than once`);
    query[key] = value;
  }
  if (problems.length) throw invalid(...problems);
  if (!validate(query)) throw invalid(...describe(validate.errors, 'query'));
  return query;
}

/** Parses and validates the body of an operation that has one, or throws 400. */
export function validateBody(name: OperationName, text: string): unknown {
  const spec = operations[name];
  if (!('body' in spec)) return undefined;
  let validate = bodyValidators.get(name);
  if (!validate) {
    validate = bodyAjv.compile(spec.body);
    bodyValidators.set(name, validate);
  }
  if (text.trim() === '') throw invalid('body: a JSON body is required');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid('body: not valid JSON');
  }
  if (!validate(body)) throw invalid(...describe(validate.errors, 'body'));
  return body;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every path parameter of the table is an identifier: a uuid. */
export function validatePathParams(params: Record<string, string>): void {
  const problems = Object.entries(params)
    .filter(([, value]) => !uuid.test(value))
    .map(([name]) => `path: parameter "${name}" must be a uuid`);
  if (problems.length) throw invalid(...problems);
}

export const isUuid = (value: string): boolean => uuid.test(value);
