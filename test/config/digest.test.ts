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
