// `cplane/sdk` is a real package export: package.json maps it to the built module and its type declarations,
// and the declarations name what docs/sdk.md promises. (test/e2e/read-secret.test.ts runs the example through it.)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
/** The functions and classes docs/sdk.md shows an application using. */
const promised = ['createClient', 'readSecret', 'decodeReaderKey', 'wrapDataKey', 'unwrapDataKey', 'ApiError', 'WrapError'];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> };

describe('the cplane/sdk export', () => {
  it('maps to built JavaScript and type declarations that exist, both exporting what docs/sdk.md promises', async () => {
    const sdk = pkg.exports['./sdk']!;
    expect(sdk).toEqual({ types: './dist/types/sdk/index.d.ts', default: './dist/sdk/index.js' });
    expect(existsSync(join(root, sdk.default))).toBe(true);
    const types = readFileSync(join(root, sdk.types), 'utf8');
    const built = (await import(pathToFileURL(join(root, sdk.default)).href)) as Record<string, unknown>;
    for (const name of promised) {
      expect(types, 'the cplane/sdk type declarations').toMatch(new RegExp(`^export (\\{[^}]*\\b|declare (function|class) )${name}\\b`, 'm'));
      expect(typeof built[name], `${name} in the built cplane/sdk`).toBe('function');
    }
  });

  it('exposes no decryption with cplane\'s state key: an application reads as a reader', async () => {
    const sdk = (await import('../../src/sdk/index.js')) as Record<string, unknown>;
    expect(Object.keys(sdk)).not.toContain('decryptRecordValue');
    expect(Object.keys(sdk)).not.toContain('openDataKey');
  });
});
