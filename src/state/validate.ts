/**
 * Checks a state document against schema/state.schema.json (JSON Schema
 * 2020-12), so a hand-edited or damaged file is refused with the place of the
 * first problems instead of failing later somewhere in the planner. The schema
 * is compiled at build time (scripts/compile-schemas.mjs), not on every run.
 */
import type { ErrorObject } from 'ajv';
import validateState from '../generated/state-schema.js';

/** Returns up to three problems as `path: message`, or an empty list when the document is valid. */
export function schemaProblems(document: unknown): string[] {
  if (validateState(document)) return [];
  return (validateState.errors ?? []).slice(0, 3).map((e: ErrorObject) => `${e.instancePath || '/'}: ${e.message ?? e.keyword}`);
}
