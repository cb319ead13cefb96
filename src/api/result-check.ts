/**
 * Checks every success body against its operation's result schema (from the
 * operation table), so an answer of the wrong shape is a clear error naming
 * the operation and the field, never a crash deep in the planner. ajv is
 * loaded, and each operation's validator compiled, only on first use: a
 * command that sends three requests compiles three validators, and start-up
 * pays nothing. Formats are not checked: a real server may write a date or an
 * id in a form the spec does not pin down; types and required members are.
 */
import type { ValidateFunction } from 'ajv';
import { operations, type OperationName } from './operations.js';

let compile: ((schema: object) => ValidateFunction) | undefined;
const validators = new Map<OperationName, ValidateFunction | null>();

async function validatorOf(operation: OperationName): Promise<ValidateFunction | null> {
  if (validators.has(operation)) return validators.get(operation) as ValidateFunction | null;
  const spec = operations[operation];
  if (!('result' in spec)) {
    validators.set(operation, null);
    return null;
  }
  if (!compile) {
    const { Ajv } = await import('ajv');
    const ajv = new Ajv({ allErrors: false, strict: false, validateFormats: false });
    compile = (schema) => ajv.compile(schema);
  }
  const validate = compile(spec.result as object);
  validators.set(operation, validate);
  return validate;
}

/** Why `data` is not a valid result of `operation` (`/0/name must be string`), or undefined when it is. */
export async function resultProblem(operation: OperationName, data: unknown): Promise<string | undefined> {
  const validate = await validatorOf(operation);
  if (!validate || validate(data)) return undefined;
  const error = validate.errors?.[0];
  if (!error) return 'it does not match the result schema';
  const field = error.instancePath === '' ? 'the result' : `field ${error.instancePath.slice(1).replace(/\//g, '.')}`;
  if (error.keyword === 'required') return `${field === 'the result' ? 'the result' : field} has no member "${String(error.params['missingProperty'])}"`;
  return `${field} ${error.message ?? 'is invalid'}`;
}
