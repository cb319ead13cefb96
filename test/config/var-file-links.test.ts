// A deployment's var file is named by the configuration, which a pull request may change (issue 47, docs/security.md
// "Bounds"): it is opened once without following a link, and the opened file is checked, not the path. A link at
// its path is refused, even one that stays inside (the deterministic form of a file swapped for a link after the
// path was checked); a file with more than one hard link (a link inside the tree to a key file) is read, but its
// text is never quoted in a diagnostic's snippet.
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { loadConfiguration } from '../../src/providers/index.js';
import { writeConfig } from './helpers.js';

const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const CONFIG = `version: 1
variables:
  env: { type: string, default: none }
deployments:
  dev: { account: ${ACCOUNT}, varFiles: [vars/dev.yaml] }
projects:
  app:
    description: \${var.env} app
`;
const STATE_KEY = 'c2VjcmV0LXN0YXRlLWtleS1ub3QtdG8tYmUtcXVvdGVkLTEyMzQ=';

test("a deployment's var file that is a symbolic link is refused, even to a file inside the folder", async () => {
  const dir = writeConfig({ 'main.yaml': CONFIG, 'vars/real.yaml': 'env: dev\n' });
  symlinkSync(join(dir, 'vars/real.yaml'), join(dir, 'vars/dev.yaml'));
  const { desired, diagnostics } = await loadConfiguration('.', { env: {}, cwd: dir, deployment: 'dev' });
  expect(desired).toBeUndefined();
  expect(diagnostics.map((d) => [d.code, d.summary, d.detail])).toEqual([
    [
      'var_file_link',
      "Variable file vars/dev.yaml is a symbolic link: a deployment's var file is read only as a plain file",
      'Put the file itself at this path, inside the configuration folder or its Git work tree.',
    ],
  ]);
});

test('a var file with a second hard link (to a key file) is not quoted in a diagnostic', async () => {
  const keys = mkdtempSync(join(tmpdir(), 'cplane-keys-'));
  onTestFinished(() => rmSync(keys, { recursive: true, force: true }));
  writeFileSync(join(keys, 'state.key'), `${STATE_KEY}\n`);
  const dir = writeConfig({ 'main.yaml': CONFIG });
  mkdirSync(join(dir, 'vars'));
  linkSync(join(keys, 'state.key'), join(dir, 'vars', 'dev.yaml'));
  const { diagnostics } = await loadConfiguration('.', { env: {}, cwd: dir, deployment: 'dev' });
  expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
    ['wrong_type', 'Variable file vars/dev.yaml must be a map of variable names to values', { file: 'vars/dev.yaml', line: 1, col: 1 }],
  ]);
  expect(diagnostics[0]!.snippet).toBe('   1 | <not quoted: the file has more than one hard link>\n     | ^');
  expect(JSON.stringify(diagnostics)).not.toContain(STATE_KEY.slice(0, 12));
});
