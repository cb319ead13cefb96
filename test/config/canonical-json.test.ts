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

test('canonicalJson orders keys as sort() does, at any number of keys, by UTF-16 code units', async () => {
  const { canonicalJson } = await import('../../src/config/index.js');
  const keys = ['é', 'Z', 'a', '10', '9', '', 'aa', 'a b', '\u{1F600}', '\uFF5E', 'mac', 'B', '_', '-', '~', 'zz', 'y', 'x1', 'x', '0'];
  for (const size of [2, 5, 16, 17, keys.length]) {
    const record = Object.fromEntries(keys.slice(0, size).map((k, i) => [k, i]));
    const expected = `{${[...keys.slice(0, size)]
      .sort()
      .map((k) => `${JSON.stringify(k)}:${record[k]}`)
      .join(',')}}`;
    expect(canonicalJson(record)).toBe(expected);
  }
});

test('canonicalJson leaves out the member `omit` names of the top object only', async () => {
  const { canonicalJson } = await import('../../src/config/index.js');
  const entry = { mac: 'm', kind: 'project', inputs: { mac: 'kept' } };
  expect(canonicalJson(entry, 'mac')).toBe('{"inputs":{"mac":"kept"},"kind":"project"}');
  const { mac: _mac, ...rest } = entry;
  expect(canonicalJson(entry, 'mac')).toBe(canonicalJson(rest));
});
