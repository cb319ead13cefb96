/**
 * The JSON Schemas are published files that editors and other tools read, so they stay plain JSON; their
 * kind-dependent parts are generated from the kind definitions (src/providers/schemas.ts). The first test
 * fails when the committed files differ from what the definitions generate; `npm run schemas` runs it with
 * CPLANE_WRITE_SCHEMAS=1, which writes the files instead. The others check the result against the
 * registry: the kind enums of the state and plan schemas, the kinds an address may name in the
 * configuration schema, and that every kind's configuration block sits where the configuration schema puts it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import stringify from 'json-stringify-pretty-compact';
import { expect, test } from 'vitest';
import { kindBlocks, kindOrder } from '../../src/providers/index.js';
import { generateSchemas, type SchemaFiles } from '../../src/providers/schemas.js';

type Schema = {
  properties?: Record<string, Schema>;
  $defs?: Record<string, Schema>;
  $ref?: string;
  additionalProperties?: Schema;
  items?: Schema;
  enum?: string[];
  pattern?: string;
  anyOf?: Schema[];
};
const read = (name: string) => JSON.parse(readFileSync(`schema/${name}.schema.json`, 'utf8')) as Schema;
const names = ['config', 'plan', 'state'] as const;
// Compact: an object that fits in 160 characters stays on one line, as people read and review these files.
const text = (schema: unknown) => `${stringify(schema, { maxLength: 160 })}\n`;

test('the committed schemas are what the kind definitions generate (run npm run schemas)', () => {
  const committed = Object.fromEntries(names.map((name) => [name, read(name)])) as unknown as SchemaFiles;
  const generated = generateSchemas(committed, kindBlocks);
  for (const name of names) {
    const file = `schema/${name}.schema.json`;
    if (process.env.CPLANE_WRITE_SCHEMAS === '1') writeFileSync(file, text(generated[name]));
    else
      expect(
        readFileSync(file, 'utf8') === text(generated[name]),
        `${file} differs from what the kind definitions generate: run npm run schemas`,
      ).toBe(true);
  }
});

const sorted = (list: readonly string[]) => [...list].sort();
/** A value's own schema, inside the variant that lets an editor accept `${…}` in its place (schema-interpolation.test.ts). */
const literal = (schema: Schema) => schema.anyOf?.[0] ?? schema;

test("the state and plan schemas list exactly the registry's kinds", () => {
  expect(sorted(read('state').$defs!.kind!.enum!)).toEqual(sorted(kindOrder));
  expect(sorted(read('plan').$defs!.kind!.enum!)).toEqual(sorted(kindOrder));
});

test("an address in the configuration may name exactly the registry's kinds", () => {
  const pattern = literal(read('config').$defs!.address!).pattern!;
  // The alternation of kind names (after the optional module prefixes).
  const named = /\(([a-z_]+(?:\|[a-z_]+)+)\)/.exec(pattern)![1]!.split('|');
  expect(sorted(named)).toEqual(sorted(kindOrder));
});

test("each kind's configuration block is where the configuration schema puts it", () => {
  const config = read('config');
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? config.$defs![schema.$ref.replace('#/$defs/', '')] : schema;
  const entrySchema = new Map<string, Schema | undefined>();
  for (const block of kindBlocks) {
    const holder = block.parent ? entrySchema.get(block.parent.kind) : config;
    if (block.list) {
      // A list of names at a dotted path inside the parent's entry (`grants.serviceAccounts`).
      const list = block.key.split('.').reduce<Schema | undefined>((schema, key) => resolve(schema?.properties?.[key]), holder);
      expect(list?.items, `${block.kind} under "${block.key}"`).toBeDefined();
      continue;
    }
    const at = resolve(holder?.properties?.[block.key]);
    expect(at, `${block.kind} under "${block.key}"`).toBeDefined();
    entrySchema.set(block.kind, block.single ? at : resolve(at!.additionalProperties));
    // An entry is an object of attributes, or a single value (a group role's `platform: admin`).
    const entry = entrySchema.get(block.kind) as (Schema & { type?: string }) | undefined;
    expect(entry?.properties ?? (entry?.type === 'string' ? {} : undefined), `${block.kind} entries`).toBeDefined();
  }
});

test("a new kind declared inside another is generated under its parent's key, before its lifecycle, and in every kind list", () => {
  const parent = kindBlocks.find((b) => !b.parent)!;
  const widget = {
    ...parent,
    kind: 'widget',
    key: 'widgets',
    parent: { kind: parent.kind, attribute: 'owner' },
    mapDescription: 'Widgets by local name.',
    schema: { description: 'A widget.', type: 'object', properties: { size: { type: 'integer' } } },
  };
  const committed = Object.fromEntries(names.map((name) => [name, read(name)])) as unknown as SchemaFiles;
  const generated = generateSchemas(committed, [...kindBlocks, widget]) as unknown as Record<(typeof names)[number], Schema>;
  const holder = generated.config.$defs![parent.kind]!.properties!;
  expect(Object.keys(holder).slice(-3)).toEqual(['widgets', 'lifecycle', 'dependsOn']);
  // forEach comes first: the declared order is `cplane fmt`'s key order.
  expect(Object.keys(holder)[0]).toBe('forEach');
  expect(holder.widgets).toMatchObject({ description: 'Widgets by local name.', additionalProperties: { $ref: '#/$defs/widget' } });
  // Held in a map by local name, so it may be a forEach template.
  expect(generated.config.$defs!.widget).toEqual({
    ...widget.schema,
    properties: { forEach: { $ref: '#/$defs/forEach' }, size: { anyOf: [{ type: 'integer' }, { $ref: '#/$defs/interpolation' }] } },
  });
  expect(literal(generated.config.$defs!.address!).pattern).toContain('|widget)\\.');
  expect(generated.state.$defs!.kind!.enum).toContain('widget');
  expect(generated.plan.$defs!.kind!.enum).toContain('widget');
});
