/**
 * Generates the kind-dependent parts of the published JSON Schemas (schema/*.json) from the kind
 * definitions: the kind enums of the state and plan schemas, the kinds an address and a policy may name,
 * and each kind's entry schema placed under its parent's key. Everything else in those files is written by
 * hand and kept as it is. `npm run schemas` writes the result; test/architecture/schema-kinds.test.ts fails
 * when the committed files differ from it. The files stay plain JSON because editors and other tools read
 * them, and the build compiles them before tsc (scripts/compile-schemas.mjs).
 */
import type { JsonSchema, KindBlock } from '../config/kind-block.js';

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
  const config = structuredClone(current.config) as Schema;
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
  // Every entry held in a map by local name may be a forEach template (config/for-each.ts): its instances
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
  // Any address may sit inside module calls: `module.payments.gateway.main` (config/modules.ts).
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
  return { config, plan: withKinds(current.plan), state: withKinds(current.state) };
}
