// `cplane/sdk` is a real package export: package.json maps it to the built module and its type declarations,
// and the declarations name what docs/sdk.md promises. (test/e2e/read-secret.test.ts runs the example through it.)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> };

describe('the cplane/sdk export', () => {
  it('maps to built JavaScript and type declarations that exist', () => {
    const sdk = pkg.exports['./sdk']!;
    expect(sdk).toEqual({ types: './dist/types/sdk/index.d.ts', default: './dist/sdk/index.js' });
    expect(existsSync(join(root, sdk.default))).toBe(true);
    const types = readFileSync(join(root, sdk.types), 'utf8');
    for (const name of ['createClient', 'readSecret', 'decodeReaderKey', 'wrapDataKey', 'unwrapDataKey', 'ApiError', 'WrapError']) expect(types).toContain(name);
  });

  it('exposes no decryption with cplane\'s state key: an application reads as a reader', async () => {
    const sdk = (await import('../../src/sdk/index.js')) as Record<string, unknown>;
    expect(Object.keys(sdk)).not.toContain('decryptRecordValue');
    expect(Object.keys(sdk)).not.toContain('openDataKey');
  });
});
