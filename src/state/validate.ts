/**
 * Checks state against schema/state.schema.json (JSON Schema 2020-12), so a
 * hand-edited or damaged file is refused with the place of the first problems
 * instead of failing later somewhere in the planner. A whole document is
 * checked on load; a recorded change checks only the entry it writes. The
 * schema is compiled at build time (scripts/compile-schemas.mjs), not on every run.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import validateState, { validateJournalEntry, validateResource } from '../generated/state-schema.js';

function problemsOf(validate: ValidateFunction, value: unknown, at: string): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 3).map((e: ErrorObject) => `${at + e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}

/** Returns up to three problems of a whole state document as `path: message`, or an empty list when it is valid. */
export function schemaProblems(document: unknown): string[] {
  return problemsOf(validateState, document, '');
}

/** Problems of one resource entry, placed at `/resources/ADDRESS`. */
export function resourceProblems(address: string, resource: unknown): string[] {
  return problemsOf(validateResource, resource, `/resources/${address}`);
}

/** Problems of one journal entry, placed at `/journal/ID`. */
export function journalEntryProblems(entry: unknown): string[] {
  const id = (entry as { id?: unknown } | null)?.id;
  return problemsOf(validateJournalEntry, entry, `/journal/${typeof id === 'string' ? id : '?'}`);
}
