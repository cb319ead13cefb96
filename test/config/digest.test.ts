/** configDigest changes with meaning, not with layout. */
import { expect, test } from 'vitest';
import { configDigest } from '../../src/config/index.js';
import { BASE, load } from './helpers.js';

test('same meaning, same digest; moved lines do not count, changed values and sources do', async () => {
  const base = configDigest((await load({ 'main.yaml': BASE })).desired!);
  expect(base).toMatch(/^[0-9a-f]{64}$/);
  expect(configDigest((await load({ 'main.yaml': `# a comment\n\n${BASE}` })).desired!)).toBe(base);
  expect(configDigest((await load({ 'main.yaml': BASE.replace('rotationIntervalDays: 90', 'rotationIntervalDays: 91') })).desired!)).not.toBe(base);
  expect(configDigest((await load({ 'main.yaml': BASE.replace('OPENAI_API_KEY', 'OTHER_KEY') })).desired!)).not.toBe(base);
  expect(configDigest((await load({ 'main.yaml': BASE }, { account: 'a' })).desired!)).not.toBe(base);
});

test('canonicalJson sorts keys, drops undefined members, writes undefined elsewhere as null', async () => {
  const { canonicalJson } = await import('../../src/config/index.js');
  expect(canonicalJson({ b: [1, undefined, 'x"y'], a: { d: undefined, c: true }, e: null })).toBe('{"a":{"c":true},"b":[1,null,"x\\"y"],"e":null}');
  expect(canonicalJson({ B: 1, a: 2, _: 3 })).toBe('{"B":1,"_":3,"a":2}');
  expect(canonicalJson(undefined)).toBe('null');
});
