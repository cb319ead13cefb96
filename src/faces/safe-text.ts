/**
 * The one gate every text printed by `cplane api` and returned by `cplane mcp`
 * passes through. It removes the secrets this face knows of: the bearer token,
 * anything shaped like a control-plane token, and the write-only values of the
 * request body (fields the table marks `writeOnly`: provider secrets, OTel
 * header values), through the shared redactor of src/text/safe-text.ts.
 */
import type { TSchema } from '@sinclair/typebox';
import { REDACTED, registerSecret, safeLines } from '../text/safe-text.js';

export { REDACTED } from '../text/safe-text.js';

/** Control-plane tokens (PAT or Service Account) wherever they appear, even ones this run was not given. */
const tokenPattern = /sk-svc-(?:pat|sa)-[A-Za-z0-9._~+/=-]+/g;

/**
 * Returns `text` with every known secret redacted (the run's secrets, kept by the shared redactor, and
 * `secrets`, registered with it here) and control characters escaped, keeping line breaks.
 */
/** (Named apart from src/text/safe-text.ts `safeText`, which this builds on: this one also knows the face's own secrets.) */
export function safeFaceText(text: string, secrets: readonly string[] = []): string {
  for (const secret of secrets) registerSecret(secret);
  return safeLines(text.replace(tokenPattern, REDACTED));
}

/**
 * The values of `value` at the places `schema` marks `writeOnly`, found by
 * walking the JSON Schema (objects, records, arrays and unions), so the table
 * stays the only list of which fields are secrets.
 */
export function writeOnlyValues(schema: TSchema | undefined, value: unknown): string[] {
  if (!schema || value === undefined || value === null) return [];
  const s = schema as Record<string, unknown>;
  if (s['writeOnly'] === true) return typeof value === 'string' ? [value] : collectStrings(value);
  const found: string[] = [];
  for (const branch of [
    ...((s['anyOf'] as TSchema[] | undefined) ?? []),
    ...((s['oneOf'] as TSchema[] | undefined) ?? []),
    ...((s['allOf'] as TSchema[] | undefined) ?? []),
  ]) {
    found.push(...writeOnlyValues(branch, value));
  }
  if (Array.isArray(value)) {
    const items = s['items'] as TSchema | undefined;
    for (const item of value) found.push(...writeOnlyValues(items, item));
    return found;
  }
  if (typeof value === 'object') {
    const properties = (s['properties'] as Record<string, TSchema> | undefined) ?? {};
    const patterns = Object.entries((s['patternProperties'] as Record<string, TSchema> | undefined) ?? {});
    const additional = typeof s['additionalProperties'] === 'object' ? (s['additionalProperties'] as TSchema) : undefined;
    for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
      const memberSchemas = [properties[key], ...patterns.filter(([p]) => new RegExp(p, 'u').test(key)).map(([, sch]) => sch), additional];
      for (const memberSchema of memberSchemas) found.push(...writeOnlyValues(memberSchema, member));
    }
  }
  return found;
}

function collectStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(collectStrings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(collectStrings);
  return [];
}
