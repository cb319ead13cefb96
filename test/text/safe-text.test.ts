// The shared rules for printed text: registered secrets are redacted in every encoding, and control
// characters and bidi overrides from untrusted text are escaped.
import { afterEach, expect, test } from 'vitest';
import { escapeControl, Redactor, REDACTED, safeLines, safeText, secrets } from '../../src/text/safe-text.js';

afterEach(() => secrets.clear());

test('a registered secret is redacted plain, as base64, base64url, unpadded base64 and JSON-escaped', () => {
  const redactor = new Redactor();
  const secret = 'sk-"openai"/secret?>>';
  redactor.register(secret);
  const b64 = Buffer.from(secret).toString('base64');
  const url = Buffer.from(secret).toString('base64url');
  const text = `a ${secret} b ${b64} c ${url} d ${b64.replace(/=+$/, '')} e ${JSON.stringify({ s: secret })}`;
  const redacted = redactor.redact(text);
  expect(redacted).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED} d ${REDACTED} e {"s":"${REDACTED}"}`);
});

test('the secret is found inside a larger base64 blob at any byte offset', () => {
  const redactor = new Redactor();
  const secret = 'sk-e2e-openai-secret';
  redactor.register(secret);
  for (const prefix of ['', 'a', 'ab', '{"secret":"']) {
    for (const encoding of ['base64', 'base64url'] as const) {
      const blob = Buffer.from(`${prefix}${secret}","more":"text"}`).toString(encoding);
      expect(redactor.redact(blob)).toContain(REDACTED);
    }
  }
});

test('short values are not registered, so they cannot blank out ordinary words', () => {
  const redactor = new Redactor();
  redactor.register('abc');
  redactor.register(undefined);
  expect(redactor.redact('abc abc')).toBe('abc abc');
  expect(redactor.size).toBe(0);
});

test('escapes C0, DEL, C1 and the bidi overrides and isolates; leaves other unicode alone', () => {
  expect(escapeControl('a\u001b[31mred\u0007\u007f\u0085\u009b')).toBe('a\\e[31mred\\x07\\x7f\\x85\\x9b');
  expect(escapeControl('\u202aA\u202bB\u202cC\u202dD\u202eE\u2066F\u2067G\u2068H\u2069')).toBe(
    '\\u202aA\\u202bB\\u202cC\\u202dD\\u202eE\\u2066F\\u2067G\\u2068H\\u2069',
  );
  expect(escapeControl('line\nbreak\ttab\r')).toBe('line\\nbreak\\ttab\\r');
  expect(escapeControl('café ✓ 日本 🚀 \u200f')).toBe('café ✓ 日本 🚀 \u200f');
});

test('safeText redacts the process-wide secrets and escapes; safeLines keeps line breaks', () => {
  secrets.register('the-bearer-token');
  expect(safeText('x the-bearer-token\u001b\n')).toBe(`x ${REDACTED}\\e\\n`);
  expect(safeLines('one the-bearer-token\ntwo\u202e\tthree\n')).toBe(`one ${REDACTED}\ntwo\\u202e\tthree\n`);
});

test('a word-like secret is redacted only as a word of its own, and its source is kept for the plan-time warning', () => {
  const redactor = new Redactor();
  redactor.register('checkout', 'env DB_PW');
  redactor.register('Zm9vYmFyYmF6cXV4LXJhbmRvbS12YWx1ZQ', 'env STRONG');
  expect(redactor.redact('pw checkout, "checkout" in checkout-assist and pre-checkout and checkouts')).toBe(
    `pw ${REDACTED}, "${REDACTED}" in checkout-assist and pre-checkout and checkouts`,
  );
  expect(redactor.redact('xZm9vYmFyYmF6cXV4LXJhbmRvbS12YWx1ZQx')).toBe(`x${REDACTED}x`);
  expect(redactor.takeWeakSources()).toEqual(['env DB_PW']);
  // Said once per command: a later command (cplane mcp runs several) says only its own.
  expect(redactor.takeWeakSources()).toEqual([]);
  redactor.register('checkout', 'env OTHER');
  expect(redactor.takeWeakSources()).toEqual(['env OTHER']);
});
