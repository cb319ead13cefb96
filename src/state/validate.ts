/**
 * Checks state against schema/state.schema.json (JSON Schema 2020-12), so a
 * hand-edited or damaged file is refused with the place of the first problems
 * instead of failing later somewhere in the planner. A whole document is
 * checked on load; a recorded change checks only the entry it writes.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const SCHEMA_ID = 'https://cplane.dev/schema/state.schema.json';

interface Validators {
  document: ValidateFunction;
  resource: ValidateFunction;
  journalEntry: ValidateFunction;
}

let validators: Validators | undefined;

function compile(): Validators {
  const schema = JSON.parse(readFileSync(new URL('../../schema/state.schema.json', import.meta.url), 'utf8')) as object;
  const ajv = new Ajv2020({ allErrors: false, strict: true });
  addFormats(ajv, ['date-time']);
  const document = ajv.compile(schema);
  const part = (name: string) => {
    const validate = ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`);
    if (!validate) throw new Error(`schema/state.schema.json has no $defs/${name}`);
    return validate;
  };
  return { document, resource: part('resource'), journalEntry: part('journalEntry') };
}

function problemsOf(validate: ValidateFunction, value: unknown, at: string): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 3).map((e: ErrorObject) => `${at + e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

/** Returns up to three problems of a whole state document as `path: message`, or an empty list when it is valid. */
export function schemaProblems(document: unknown): string[] {
  validators ??= compile();
  return problemsOf(validators.document, document, '');
}

/** Problems of one resource entry, placed at `/resources/ADDRESS`. */
export function resourceProblems(address: string, resource: unknown): string[] {
  validators ??= compile();
  return problemsOf(validators.resource, resource, `/resources/${address}`);
}

/** Problems of one journal entry, placed at `/journal/ID`. */
export function journalEntryProblems(entry: unknown): string[] {
  validators ??= compile();
  const id = (entry as { id?: unknown } | null)?.id;
  return problemsOf(validators.journalEntry, entry, `/journal/${typeof id === 'string' ? id : '?'}`);
}
