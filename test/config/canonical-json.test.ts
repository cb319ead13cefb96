/** canonicalJson: the text a saved plan's steps are compared by. */
import { expect, test } from 'vitest';

test('canonicalJson sorts keys, drops undefined members, writes undefined elsewhere as null', async () => {
  const { canonicalJson } = await import('../../src/config/index.js');
  expect(canonicalJson({ b: [1, undefined, 'x"y'], a: { d: undefined, c: true }, e: null })).toBe(
    '{"a":{"c":true},"b":[1,null,"x\\"y"],"e":null}',
  );
  expect(canonicalJson({ B: 1, a: 2, _: 3 })).toBe('{"B":1,"_":3,"a":2}');
  expect(canonicalJson(undefined)).toBe('null');
});
