/**
 * Checks a state document against schema/state.schema.json (JSON Schema
 * 2020-12), so a hand-edited or damaged file is refused with the place of the
 * first problems instead of failing later somewhere in the planner.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { StateFileContents } from './file-format.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let validator: ValidateFunction<StateFileContents> | undefined;

function compile(): ValidateFunction<StateFileContents> {
  const schema = JSON.parse(readFileSync(new URL('../../schema/state.schema.json', import.meta.url), 'utf8')) as object;
  const ajv = new Ajv2020({ allErrors: false, strict: true });
  addFormats(ajv, ['date-time']);
  return ajv.compile<StateFileContents>(schema);
}

/** Returns up to three problems as `path: message`, or an empty list when the document is valid. */
export function schemaProblems(document: unknown): string[] {
  validator ??= compile();
  if (validator(document)) return [];
  return (validator.errors ?? []).slice(0, 3).map((e: ErrorObject) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}
