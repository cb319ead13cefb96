// `cplane/sdk` is a real package export: package.json maps it to the built module and its type declarations,
// and the module gives what docs/sdk.md promises, from the one copy of the reader's code: the workspace package
// @cplane/sdk (packages/sdk), which the root package depends on. (test/e2e/read-secret.test.ts runs the CLI's
// `read` through it; test/e2e/sdk-package.test.ts installs the packed package alone.)
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string }>;
  dependencies: Record<string, string>;
  workspaces: string[];
  bundleDependencies: string[];
};
const promised = [
  'createClient',
  'readSecret',
  'readSecretValue',
  'decodeReaderKey',
  'readReaderKeyFile',
  'parseWriterKeys',
  'wrapDataKey',
  'unwrapDataKey',
  'ApiError',
  'WrapError',
  'AccountError',
];

describe('the cplane/sdk export', () => {
  it('maps to built JavaScript and type declarations that exist, and gives what docs/sdk.md promises', async () => {
    const sdk = pkg.exports['./sdk']!;
    expect(sdk).toEqual({ types: './dist/types/sdk/index.d.ts', default: './dist/sdk/index.js' });
    expect(existsSync(join(root, sdk.default))).toBe(true);
    expect(readFileSync(join(root, sdk.types), 'utf8')).toContain("export * from '@cplane/sdk';");
    const built = (await import(pathToFileURL(join(root, sdk.default)).href)) as Record<string, unknown>;
    for (const name of promised) expect(typeof built[name], name).toBe('function');
  });

  it("exposes no decryption with cplane's state key: an application reads as a reader", async () => {
    for (const module of [await import('../../src/sdk/index.js'), await import('@cplane/sdk')]) {
      expect(Object.keys(module)).not.toContain('decryptRecordValue');
      expect(Object.keys(module)).not.toContain('openDataKey');
    }
  });
});

describe('the @cplane/sdk workspace package', () => {
  it("is the one copy of the reader's code: the root depends on it through the workspace and bundles it when packed", () => {
    expect(pkg.workspaces).toEqual(['packages/sdk']);
    expect(pkg.dependencies['@cplane/sdk']).toBe('0.1.0');
    expect(pkg.bundleDependencies).toEqual(['@cplane/sdk']);
    expect(realpathSync(join(root, 'node_modules', '@cplane', 'sdk'))).toBe(join(root, 'packages', 'sdk'));
    const moved = [
      'hpke.ts',
      'data-key-wrap.ts',
      'read-value.ts',
      'reader-key.ts',
      'key-id.ts',
      'wrap-error.ts',
      'writer-key.ts',
      'owner-only-file.ts',
    ];
    expect(readdirSync(join(root, 'src', 'crypto')).filter((file) => moved.includes(file))).toEqual([]);
    expect(readdirSync(join(root, 'src', 'sdk'))).toEqual(['index.ts']);
  });

  it('has one runtime dependency and publishes only its built files', () => {
    const sdk = JSON.parse(readFileSync(join(root, 'packages', 'sdk', 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
      files: string[];
    };
    expect(sdk.name).toBe('@cplane/sdk');
    expect(Object.keys(sdk.dependencies)).toEqual(['@noble/ciphers']);
    expect(sdk.files).toEqual(['dist/*.js', 'dist/*.d.ts']);
  });
});
