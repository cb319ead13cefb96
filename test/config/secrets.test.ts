/**
 * Resolving secret sources at write time: values come back, errors name the
 * source and never a value.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { resolveSecret } from '../../src/config/index.js';
import { generateSecret } from '../../src/config/values/secrets.js';
import { isWeakSecret, secrets } from '../../src/text/safe-text.js';

// The values resolved here are registered with the process's redactor: the next test file of this worker starts without them.
afterEach(() => secrets.clear());
import { writeConfig } from './helpers.js';

test('env: the variable value, or an error naming the variable', async () => {
  expect(await resolveSecret({ env: 'KEY' }, { KEY: 'sk-fake' })).toBe('sk-fake');
  await expect(resolveSecret({ env: 'KEY' }, {})).rejects.toThrow('Secret source "env KEY": environment variable KEY is not set');
});

test('file: the content without its final newline, or an error naming the path and not the content', async () => {
  const dir = writeConfig({ 'key.txt': 'sk-file-value\n', 'empty.txt': '\n' });
  expect(await resolveSecret({ file: join(dir, 'key.txt') }, {})).toBe('sk-file-value');
  await expect(resolveSecret({ file: join(dir, 'missing.txt') }, {})).rejects.toThrow(
    `Secret source "file ${join(dir, 'missing.txt')}" cannot be read (ENOENT)`,
  );
  await expect(resolveSecret({ file: join(dir, 'empty.txt') }, {})).rejects.toThrow('is empty');
});

test('generate: a fresh base64url value of the given length each time', async () => {
  const a = await resolveSecret({ generate: { length: 33 } }, {});
  const b = await resolveSecret({ generate: { length: 33 } }, {});
  expect(a).toMatch(/^[A-Za-z0-9_-]{33}$/);
  expect(a).not.toBe(b);
});

test('loading never reads a secret file', async () => {
  const dir = writeConfig({ 'main.yaml': 'credentials:\n  c:\n    provider: openai\n    secret: { file: ./unreadable.txt }\n' });
  writeFileSync(join(dir, 'unreadable.txt'), 'sk-should-not-be-read', { mode: 0o000 });
  const { loadConfiguration } = await import('../../src/providers/index.js');
  const { desired, diagnostics } = await loadConfiguration('.', { cwd: dir, env: {} });
  expect(diagnostics).toEqual([]);
  expect(JSON.stringify(desired)).not.toContain('sk-should-not-be-read');
});

test('generate never makes a value the redactor takes for a word (letters only): it would be hidden only where it stands alone, and warned about', () => {
  // Of 4,000 draws of 16 characters, about 150 would be letters only without the redraw.
  const draws = Array.from({ length: 4000 }, () => generateSecret(16));
  expect(draws.filter(isWeakSecret)).toEqual([]);
  expect(draws.every((d) => /^[A-Za-z0-9_-]{16}$/.test(d))).toBe(true);
  expect(new Set(draws).size).toBe(4000);
});
