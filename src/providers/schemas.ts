/**
 * Generates the kind-dependent parts of the published JSON Schemas (schema/*.json) from the kind
 * definitions: the kind enums of the state and plan schemas, the kinds an address and a policy may name,
 * and each kind's entry schema placed under its parent's key. Everything else in those files is written by
 * hand and kept as it is. `npm run schemas` writes the result; test/architecture/schema-kinds.test.ts fails
 * when the committed files differ from it. The files stay plain JSON because editors and other tools read
 * them, and the build compiles them before tsc (scripts/compile-schemas.mjs).
 */
import type { JsonSchema, KindBlock } from '../config/blocks/kind-block.js';

export interface SchemaFiles {
  config: JsonSchema;
  plan: JsonSchema;
  state: JsonSchema;
}

type Schema = JsonSchema & { properties?: Record<string, Schema>; $defs?: Record<string, Schema> };

/** A copy of `object` with `key` set to `value` before the key `before` (or at the end when it is absent). */
function insertBefore(object: Record<string, Schema>, before: string, key: string, value: Schema): Record<string, Schema> {
  const entries = Object.entries(object).filter(([k]) => k !== key);
  const at = entries.findIndex(([k]) => k === before);
  entries.splice(at < 0 ? entries.length : at, 0, [key, value]);
  return Object.fromEntries(entries);
}

/** Where a block's entries sit in the schema that holds them: the entry itself, or a map of entries by local name. */
function holderProperty(block: KindBlock): Schema {
  const entry = { $ref: `#/$defs/${block.kind}` };
  if (block.single) return entry;
  return { description: block.mapDescription, type: 'object', propertyNames: { $ref: '#/$defs/localName' }, additionalProperties: entry };
}

/**
 * The three schemas with their kind-dependent parts made from `blocks` (in kind order). Top-level kinds go
 * after `variables`; a child kind's key goes before its parent's `lifecycle`. Pure: the caller reads and writes files.
 */
export function generateSchemas(current: SchemaFiles, blocks: readonly KindBlock[]): SchemaFiles {
  const kinds = blocks.map((b) => b.kind);
  const config = withoutInterpolation(current.config) as Schema;
  const defs = { ...config.$defs } as Record<string, Schema>;
  for (const block of blocks) delete defs[block.kind];
  // A block whose entries are names in a list (a record's `grants.serviceAccounts`) is described by its parent's schema.
  const placed = blocks.filter((b) => !b.list);
  for (const block of placed) defs[block.kind] = structuredClone(block.schema) as Schema;
  // Singles first, then maps: the order build-desired declares children in.
  const children = [...placed.filter((b) => b.single), ...placed.filter((b) => !b.single)].filter((b) => b.parent);
  for (const child of children) {
    const parent = defs[child.parent!.kind]!;
    parent.properties = insertBefore(parent.properties ?? {}, 'lifecycle', child.key, holderProperty(child));
  }
  const topLevel = blocks.filter((b) => !b.parent);
  const rest = Object.entries(config.properties ?? {}).filter(([key]) => !topLevel.some((b) => b.key === key));
  rest.splice(rest.findIndex(([key]) => key === 'variables') + 1, 0, ...topLevel.map((b): [string, Schema] => [b.key, holderProperty(b)]));
  config.properties = Object.fromEntries(rest);
  // Every entry held in a map by local name may be a forEach template (config/values/for-each.ts): its instances
  // are NAME[KEY], in local names and in addresses.
  // (A kind listed by name in its parent, as grants are, has no entry of its own to template.)
  // An entry that is a single value (a group role's `platform: admin`) has no keys, so no forEach either.
  // It comes first: the declared order is `cplane fmt`'s key order, and a template reads best from what it repeats over.
  for (const block of blocks)
    if (!block.single && !block.list && defs[block.kind]?.type === 'object')
      defs[block.kind]!.properties = { forEach: { $ref: '#/$defs/forEach' }, ...defs[block.kind]!.properties };
  const segment = '[A-Za-z0-9][A-Za-z0-9_-]*(\\[[^\\[\\]/]+\\])?';
  // As deep as kinds nest: a record grant is `service_account_grant.PROJECT/RECORD/READER`.
  const depth = (block: KindBlock): number => (block.parent ? 1 + depth(blocks.find((b) => b.kind === block.parent!.kind)!) : 0);
  const deepest = Math.max(0, ...blocks.filter((b) => !b.single).map(depth));
  // Any address may sit inside module calls: `module.payments.gateway.main` (config/blocks/modules.ts).
  const moduleName = '[A-Za-z0-9][A-Za-z0-9_-]*';
  defs.address = {
    ...defs.address,
    pattern: `^(module\\.${moduleName}\\.)*(${kinds.join('|')})\\.${segment}(/${segment})${deepest > 1 ? `{0,${deepest}}` : '?'}$`,
  };
  const policy = defs.policy!;
  policy.properties!.kinds = { ...policy.properties!.kinds, items: { enum: [...kinds] } };
  config.$defs = defs;
  const withKinds = (schema: JsonSchema): JsonSchema => {
    const copy = structuredClone(schema) as Schema;
    copy.$defs = { ...copy.$defs, kind: { ...copy.$defs?.kind, enum: [...kinds] } };
    return copy;
  };
  return { config: acceptInterpolation(config), plan: withKinds(current.plan), state: withKinds(current.state) };
}

/** The definition an editor checks `${…}` text against where a value of another type is written. */
export const INTERPOLATION_DEF = 'interpolation';
const interpolationRef = { $ref: `#/$defs/${INTERPOLATION_DEF}` };

// Read as written, never interpolated: variables give values, deployments give the variables theirs, keys are names.
const literalProperties = new Set(['version', 'variables', 'deployments']);
const literalDefs = new Set(['deploymentName', 'deployment', 'variable', 'variableName', 'localName', 'forEach', INTERPOLATION_DEF]);
// What `${…}` text could fail, before interpolation gives the value that is checked: a type other than text,
// a format, a list of values, a pattern.
const textFails = (schema: Schema): boolean => {
  const types = [schema.type].flat();
  return (
    (schema.type !== undefined && types.some((t) => t !== 'string' && t !== 'null')) ||
    ['format', 'enum', 'const', 'pattern'].some((keyword) => keyword in schema)
  );
};

/**
 * `schema` with the variants acceptInterpolation adds taken out: the hand-written parts come from the committed
 * file, which holds the last generation. (scripts/compile-schemas.mjs does the same, before tsc, for cplane's own check.)
 */
export function withoutInterpolation(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutInterpolation);
  if (!schema || typeof schema !== 'object') return schema;
  const { anyOf, ...rest } = schema as Schema;
  if (Array.isArray(anyOf) && anyOf.length === 2 && (anyOf[1] as Schema).$ref === interpolationRef.$ref)
    return withoutInterpolation({ ...rest, ...(anyOf[0] as Schema) });
  const out = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, withoutInterpolation(value)])) as Schema;
  if (out.$defs) delete out.$defs[INTERPOLATION_DEF];
  return out;
}

/**
 * The configuration schema as an editor reads it: before interpolation, where every value outside `variables`
 * and `deployments` may be `${…}` text (config/values/for-each.ts). Each value whose schema such text would fail
 * becomes `anyOf: [its schema, interpolation]`, its description kept outside so hover still shows it; a
 * literal of the wrong type keeps its precise error (the editor reports the closest variant). cplane checks
 * the values after interpolation, so scripts/compile-schemas.mjs takes these variants out again.
 */
function acceptInterpolation(config: Schema): Schema {
  const map = (schemas: Record<string, unknown>, keep: (name: string) => boolean = () => false) =>
    Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, keep(name) ? schema : visit(schema)])) as Record<
      string,
      Schema
    >;
  function visit(schema: unknown): unknown {
    if (!schema || typeof schema !== 'object') return schema;
    const node = schema as Schema;
    const holds = ['properties', 'additionalProperties', 'items', 'anyOf', 'oneOf', '$ref'].some((k) => k in node);
    if (!holds && textFails(node)) {
      const { description, ...rest } = node;
      return { ...(description === undefined ? {} : { description }), anyOf: [rest, interpolationRef] };
    }
    const out: Schema = { ...node };
    if (node.properties) out.properties = map(node.properties, (name) => node === config && literalProperties.has(name));
    if (node.$defs) out.$defs = map(node.$defs, (name) => literalDefs.has(name));
    for (const key of ['additionalProperties', 'items'] as const) if (key in node) out[key] = visit(node[key]);
    for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(node[key])) out[key] = (node[key] as unknown[]).map(visit);
    return out;
  }
  const out = visit(config) as Schema;
  out.$defs = {
    ...out.$defs,
    [INTERPOLATION_DEF]: {
      description:
        'Text with ${var.NAME}, ${env.NAME}, or inside forEach ${each.key} and ${each.value}: its value is known once the configuration loads, and `cplane validate` checks it then.',
      type: 'string',
      pattern: '\\$\\{[^}]+\\}',
    },
  };
  return out;
}
