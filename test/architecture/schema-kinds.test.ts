/**
 * The JSON Schemas are published files that editors and other tools read, so they stay plain JSON; their
 * lists of kinds must be the registry's. This checks each against the kind definitions: the kind enums of
 * the state and plan schemas, the kinds an address may name in the configuration schema, and that every
 * kind's configuration block sits where the configuration schema puts it.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { kindBlocks, kindOrder } from '../../src/providers/index.js';

type Schema = { properties?: Record<string, Schema>; $defs?: Record<string, Schema>; $ref?: string; additionalProperties?: Schema; enum?: string[]; pattern?: string };
const read = (name: string) => JSON.parse(readFileSync(`schema/${name}.schema.json`, 'utf8')) as Schema;
const sorted = (list: readonly string[]) => [...list].sort();

test('the state and plan schemas list exactly the registry\'s kinds', () => {
  expect(sorted(read('state').$defs!.kind!.enum!)).toEqual(sorted(kindOrder));
  expect(sorted(read('plan').$defs!.kind!.enum!)).toEqual(sorted(kindOrder));
});

test('an address in the configuration may name exactly the registry\'s kinds', () => {
  const pattern = read('config').$defs!.address!.pattern!;
  // The alternation of kind names (after the optional module prefixes).
  const named = /\(([a-z_]+(?:\|[a-z_]+)+)\)/.exec(pattern)![1]!.split('|');
  expect(sorted(named)).toEqual(sorted(kindOrder));
});

test('each kind\'s configuration block is where the configuration schema puts it', () => {
  const config = read('config');
  const resolve = (schema: Schema | undefined): Schema | undefined => (schema?.$ref ? config.$defs![schema.$ref.replace('#/$defs/', '')] : schema);
  const entrySchema = new Map<string, Schema | undefined>();
  for (const block of kindBlocks) {
    const holder = block.parent ? entrySchema.get(block.parent.kind) : config;
    const at = resolve(holder?.properties?.[block.key]);
    expect(at, `${block.kind} under "${block.key}"`).toBeDefined();
    entrySchema.set(block.kind, block.single ? at : resolve(at!.additionalProperties));
    expect(entrySchema.get(block.kind)?.properties, `${block.kind} entries`).toBeDefined();
  }
});
