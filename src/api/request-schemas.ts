/**
 * Checks a request's query and body against the operation table's schemas,
 * compiled with ajv on first use per operation. Query values given as text are
 * coerced to their declared types (`limit=5` -> 5, `includeArchived=true` ->
 * true); bodies are checked as they are. Problems are one readable line each
 * and never quote a value, so a secret sent by mistake is not echoed. The
 * emulator answers them as a 400, and `cplane api` and the MCP tools refuse to
 * send a request that has any.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { operations, type OperationName } from './operations.js';

// ajv-formats is CommonJS: at run time the default import is the plugin function itself, which its typings do not say under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// The schemas are the operation table's own, checked against JSON Schema by test/api/request-schemas.test.ts: checking
// each again at run time made ajv compile its meta-schema first, three quarters of the first request's check (84 ms of
// the 110 ms that `cplane test`'s in-process emulator spent on its checks).
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, validateSchema: false }));
const queryAjv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: true, validateSchema: false }));
const noQuery = { type: 'object', additionalProperties: false, properties: {} };
const validators = new Map<string, ValidateFunction>();

function validatorOf(key: string, compile: () => ValidateFunction): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = compile();
    validators.set(key, validate);
  }
  return validate;
}

function describe(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    const at = `${where}${e.instancePath}`;
    if (e.keyword === 'additionalProperties') return `${at}: unknown member "${String(e.params['additionalProperty'])}"`;
    if (e.keyword === 'required') return `${at}: missing required member "${String(e.params['missingProperty'])}"`;
    return `${at}: ${e.message ?? 'is invalid'}`;
  });
}

/** Problems of a query object (coerced in place to the declared types); an operation without a query takes none. */
export function queryProblems(name: OperationName, query: Record<string, unknown>): string[] {
  const spec = operations[name];
  const validate = validatorOf(`${name}/query`, () => queryAjv.compile('query' in spec ? spec.query : noQuery));
  return validate(query) ? [] : describe(validate.errors, 'query');
}

/** Problems of a parsed body; call it only for an operation that has one. */
export function bodyProblems(name: OperationName, body: unknown): string[] {
  const spec = operations[name];
  if (!('body' in spec)) return [];
  const validate = validatorOf(`${name}/body`, () => bodyAjv.compile(spec.body));
  return validate(body) ? [] : describe(validate.errors, 'body');
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every path parameter of the table is an identifier: a uuid. */
export const isPathParam = (value: string): boolean => uuid.test(value);
