/**
 * Resolving secret sources at write time: values come back, errors name the
 * source and never a value.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { resolveSecret } from '../../src/config/index.js';
import { writeConfig } from './helpers.js';

test('env: the variable value, or an error naming the variable', async () => {
  expect(await resolveSecret({ env: 'KEY' }, { KEY: 'sk-fake' })).toBe('sk-fake');
  await expect(resolveSecret({ env: 'KEY' }, {})).rejects.toThrow('Secret source "env KEY": environment variable KEY is not set');
});

test('file: the content without its final newline, or an error naming the path and not the content', async () => {
  const dir = writeConfig({ 'key.txt': 'sk-file-value\n', 'empty.txt': '\n' });
  expect(await resolveSecret({ file: join(dir, 'key.txt') }, {})).toBe('sk-file-value');
  await expect(resolveSecret({ file: join(dir, 'missing.txt') }, {})).rejects.toThrow(`Secret source "file ${join(dir, 'missing.txt')}" cannot be read (ENOENT)`);
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
