/**
 * Short human wording of a JSON Schema from the operation table, for the
 * generated `cplane api <operation> --help`: `string (1..200 characters)`,
 * `integer 1..200`, `uuid or null`, `array of string`, `object {alg, keyId}`.
 */
import type { TSchema } from '@sinclair/typebox';

type Schema = Record<string, unknown>;

const range = (min: unknown, max: unknown): string =>
  min !== undefined && max !== undefined
    ? `${String(min)}..${String(max)}`
    : min !== undefined
      ? `>= ${String(min)}`
      : max !== undefined
        ? `<= ${String(max)}`
        : '';

export function typeLabel(schema: TSchema | undefined): string {
  if (!schema) return 'any JSON';
  const s = schema as Schema;
  if ('const' in s) return JSON.stringify(s['const']);
  const branches = (s['anyOf'] ?? s['oneOf']) as TSchema[] | undefined;
  if (branches) {
    const nonNull = branches.filter((b) => (b as Schema)['type'] !== 'null');
    const nullable = nonNull.length < branches.length ? ' or null' : '';
    if (nonNull.every((b) => 'const' in b))
      return `one of ${nonNull.map((b) => JSON.stringify((b as Schema)['const'])).join(', ')}${nullable}`;
    return `${nonNull.map(typeLabel).join(' or ')}${nullable}`;
  }
  switch (s['type']) {
    case 'string': {
      if (typeof s['format'] === 'string') return s['format'];
      const length = range(s['minLength'], s['maxLength']);
      const pattern = typeof s['pattern'] === 'string' ? ` matching ${s['pattern']}` : '';
      return `string${length ? ` (${length} characters)` : ''}${pattern}`;
    }
    case 'integer':
    case 'number': {
      const bounds = range(s['minimum'], s['maximum']);
      return `${s['type']}${bounds ? ` ${bounds}` : ''}`;
    }
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const count = range(s['minItems'], s['maxItems']);
      return `array of ${typeLabel(s['items'] as TSchema | undefined)}${count ? ` (${count} items)` : ''}`;
    }
    case 'object': {
      const properties = Object.keys((s['properties'] as object | undefined) ?? {});
      if (properties.length > 0) return `object {${properties.join(', ')}}`;
      const values = Object.values((s['patternProperties'] as Record<string, TSchema> | undefined) ?? {})[0];
      return values ? `map of name to ${typeLabel(values)}` : 'object';
    }
    default:
      return 'any JSON';
  }
}

export interface FieldLine {
  name: string;
  label: string;
  required: boolean;
  writeOnly: boolean;
}

/** The top-level members of an object schema, in declaration order. */
export function fieldsOf(schema: TSchema | undefined): FieldLine[] {
  const s = (schema ?? {}) as Schema;
  const required = new Set((s['required'] as string[] | undefined) ?? []);
  return Object.entries((s['properties'] as Record<string, TSchema> | undefined) ?? {}).map(([name, member]) => ({
    name,
    label: typeLabel(member),
    required: required.has(name),
    writeOnly: containsWriteOnly(member),
  }));
}

function containsWriteOnly(schema: TSchema): boolean {
  return JSON.stringify(schema).includes('"writeOnly":true');
}
