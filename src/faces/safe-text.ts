/**
 * The one gate every text printed by `cplane api` and returned by `cplane mcp`
 * passes through. It removes the secrets this face knows of: the bearer token,
 * anything shaped like a control-plane token, and the write-only values of the
 * request body (fields the table marks `writeOnly`: provider secrets, OTel
 * header values), in their raw and their JSON-escaped spelling. The shared
 * redactor of the code base can replace the body of `safeText` without any
 * caller changing.
 */
import type { TSchema } from '@sinclair/typebox';

export const REDACTED = '[redacted]';

/** Control-plane tokens (PAT or Service Account) wherever they appear. */
const tokenPattern = /sk-svc-(?:pat|sa)-[A-Za-z0-9._~+/=-]+/g;

/** Values shorter than this are not searched for: replacing them would garble the text and hide nothing. */
const MIN_SECRET_LENGTH = 6;

/** Returns `text` with every known secret replaced by `[redacted]`. */
export function safeText(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(tokenPattern, REDACTED);
  const spellings = secrets
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])
    // Longest first, so a secret that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  for (const secret of new Set(spellings)) out = out.split(secret).join(REDACTED);
  return out;
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
  for (const branch of [...((s['anyOf'] as TSchema[] | undefined) ?? []), ...((s['oneOf'] as TSchema[] | undefined) ?? []), ...((s['allOf'] as TSchema[] | undefined) ?? [])]) {
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
