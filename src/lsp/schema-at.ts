/**
 * The configuration schema (schema/config.schema.json) at a path of keys: what a key may hold and what it means.
 * Completion offers the properties of the map at the cursor, hover shows a key's description.
 */
import type { JsonSchema } from '../config/index.js';

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

function resolveRef(root: JsonSchema, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let i = 0; i < 10 && typeof current.$ref === 'string'; i++) {
    const name = /^#\/\$defs\/(.+)$/.exec(current.$ref as string)?.[1];
    const found = name !== undefined && isSchema(root.$defs) ? (root.$defs as Record<string, unknown>)[name] : undefined;
    if (!isSchema(found)) return {};
    current = { ...found, ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== '$ref')) };
  }
  return current;
}

/** The schema of the value at `path` (map keys; a list's items are passed through), or undefined. */
export function schemaAt(root: JsonSchema, path: readonly string[]): JsonSchema | undefined {
  let schema: JsonSchema | undefined = root;
  for (const key of path) {
    if (!schema) return undefined;
    schema = resolveRef(root, schema);
    if (isSchema(schema.items)) schema = resolveRef(root, schema.items);
    const properties = isSchema(schema.properties) ? (schema.properties as Record<string, unknown>) : {};
    const next: unknown = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
    schema = isSchema(next) ? next : variantWith(root, schema, key);
  }
  return schema ? resolveRef(root, schema) : undefined;
}

/** A key of one of the schema's `oneOf`/`anyOf` variants. */
function variantWith(root: JsonSchema, schema: JsonSchema, key: string): JsonSchema | undefined {
  for (const variant of [...((schema.oneOf as unknown[]) ?? []), ...((schema.anyOf as unknown[]) ?? [])]) {
    if (!isSchema(variant)) continue;
    const resolved = resolveRef(root, variant);
    const properties = resolved.properties;
    if (isSchema(properties) && isSchema(properties[key])) return properties[key] as JsonSchema;
  }
  return undefined;
}

/** The properties a map at `path` may have, with their descriptions. */
export function propertiesAt(root: JsonSchema, path: readonly string[]): { name: string; description?: string }[] {
  let schema = schemaAt(root, path);
  if (!schema) return [];
  if (isSchema(schema.items)) schema = resolveRef(root, schema.items);
  const properties = isSchema(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  return Object.entries(properties).map(([name, property]) => {
    const description = resolveRef(root, property).description;
    return typeof description === 'string' ? { name, description } : { name };
  });
}
