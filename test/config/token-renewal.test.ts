/**
 * Renewal settings of gateway tokens: `renewBeforeDays` and `overlapHours` on a token, and their
 * configuration-wide defaults under `defaults.tokens`. A token's own value wins; bad values get their exact
 * diagnostic at file:line:col.
 */
import { describe, expect, test } from 'vitest';
import { BASE, load } from './helpers.js';

const withToken = (token: string, extra = '') => `${extra}${BASE}    tokens:\n      ci:\n        scopes: [run]\n${token}`;

async function only(files: Record<string, string>) {
  const result = await load(files);
  expect(result.desired).toBeUndefined();
  expect(result.diagnostics).toHaveLength(1);
  return result.diagnostics[0]!;
}

const tokenAttributes = async (files: Record<string, string>) => {
  const result = await load(files);
  expect(result.diagnostics).toEqual([]);
  return result.desired!.resources.find((r) => r.address === 'gateway_token.prod/ci')!.attributes as unknown as Record<string, unknown>;
};

describe('renewal settings', () => {
  test('a token renews only when it says so (or a default does), with a 24-hour overlap by default', async () => {
    const plain = await tokenAttributes({ 'main.yaml': withToken('        expiresInDays: 30\n') });
    expect(plain).not.toHaveProperty('renewBeforeDays');
    expect(plain).not.toHaveProperty('overlapHours');
    expect(await tokenAttributes({ 'main.yaml': withToken('        expiresInDays: 30\n        renewBeforeDays: 7\n') })).toMatchObject({
      renewBeforeDays: 7,
      overlapHours: 24,
    });
    expect(
      await tokenAttributes({
        'main.yaml': withToken('        expiresInDays: 30\n        renewBeforeDays: 7\n        overlapHours: 48\n'),
      }),
    ).toMatchObject({ renewBeforeDays: 7, overlapHours: 48 });
  });

  test('defaults.tokens applies to every token that gives no value of its own, in any file', async () => {
    const defaults = 'defaults:\n  tokens:\n    renewBeforeDays: 7\n    overlapHours: 12\n';
    expect(await tokenAttributes({ 'main.yaml': withToken('        expiresInDays: 30\n'), 'defaults.yaml': defaults })).toMatchObject({
      renewBeforeDays: 7,
      overlapHours: 12,
    });
    expect(
      await tokenAttributes({
        'main.yaml': withToken('        expiresInDays: 30\n        renewBeforeDays: 3\n'),
        'defaults.yaml': defaults,
      }),
    ).toMatchObject({ renewBeforeDays: 3, overlapHours: 12 });
    // null on the token turns the default off for it.
    expect(
      await tokenAttributes({
        'main.yaml': withToken('        expiresInDays: 30\n        renewBeforeDays: null\n'),
        'defaults.yaml': defaults,
      }),
    ).not.toHaveProperty('renewBeforeDays');
  });

  test('renewBeforeDays out of range', async () => {
    const d = await only({ 'main.yaml': withToken('        expiresInDays: 30\n        renewBeforeDays: 0\n') });
    expect(d).toMatchObject({ code: 'out_of_range', range: { file: 'main.yaml', line: 21, col: 26 } });
    expect(d.summary).toBe('"renewBeforeDays" in token "prod/ci" must be between 1 and 3650; got 0');
  });

  test('overlapHours of the wrong type, in defaults', async () => {
    const d = await only({ 'main.yaml': withToken('        expiresInDays: 30\n', 'defaults:\n  tokens:\n    overlapHours: "1d"\n') });
    expect(d).toMatchObject({ code: 'wrong_type', range: { file: 'main.yaml', line: 3, col: 19 } });
    expect(d.summary).toBe('Wrong type for "defaults.tokens.overlapHours": expected an integer, got a string');
  });

  test('a field that has no default', async () => {
    const d = await only({ 'main.yaml': withToken('', 'defaults:\n  tokens:\n    expiresInDays: 30\n') });
    expect(d).toMatchObject({ range: { file: 'main.yaml', line: 3, col: 5 } });
    expect(d.summary).toContain('Unknown key "expiresInDays"');
  });

  test('a window as long as the token lives would renew it on every apply', async () => {
    const d = await only({ 'main.yaml': withToken('        expiresInDays: 7\n        renewBeforeDays: 7\n') });
    expect(d).toMatchObject({ code: 'renewal_window_too_long', range: { file: 'main.yaml', line: 21, col: 26 } });
    expect(d.summary).toBe('renewBeforeDays (7) of token "ci" must be less than its expiresInDays (7)');
    expect(d.detail).toBe(
      'Otherwise the token is renewed on every apply. Lower renewBeforeDays (here or in defaults.tokens), or raise expiresInDays.',
    );
  });

  test('a spend window without a spend limit has nothing to count', async () => {
    const d = await only({ 'main.yaml': withToken('        spendWindow: weekly\n') });
    expect(d).toMatchObject({ code: 'spend_window_without_limit', range: { file: 'main.yaml', line: 20, col: 22 } });
    expect(d.summary).toBe('spendWindow (weekly) of token "ci" has no spendLimit to count');
    expect(d.detail).toBe('Add spendLimit: "25.00" (the amount the window allows), or remove spendWindow.');
    expect((await tokenAttributes({ 'main.yaml': withToken('        spendLimit: "25.00"\n') })).spendWindow).toBe('daily');
  });

  test('the same, from the default: pointed at the token', async () => {
    const d = await only({
      'main.yaml': withToken('        expiresInDays: 5\n'),
      'defaults.yaml': 'defaults:\n  tokens:\n    renewBeforeDays: 7\n',
    });
    expect(d).toMatchObject({ code: 'renewal_window_too_long', range: { file: 'main.yaml', line: 18, col: 7 } });
  });

  test('a default given in two files', async () => {
    const d = await only({
      'a.yaml': 'defaults:\n  tokens:\n    renewBeforeDays: 7\n',
      'b.yaml': 'defaults:\n  tokens:\n    renewBeforeDays: 5\n',
      'main.yaml': withToken(''),
    });
    expect(d).toMatchObject({ code: 'duplicate_default', range: { file: 'b.yaml', line: 3, col: 5 } });
    expect(d.summary).toBe('defaults.tokens.renewBeforeDays is given twice: in a.yaml and again here');
  });
});
