// `cplane fmt` as a user runs it: --check exits 3 and writes nothing, --diff prints a unified diff, a plain run
// rewrites the files (comments kept) after which --check passes, and a file that does not parse stops it all.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { runCli } from './helpers.js';

let temp: string;
let dir: string;
const env = () => ({ PATH: process.env.PATH, HOME: temp, XDG_CONFIG_HOME: join(temp, 'config'), NO_COLOR: '1' });
const fmt = (...args: string[]) => runCli(['fmt', ...args], env(), temp);

beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-fmt-e2e-'));
  dir = join(temp, 'infra');
  mkdirSync(join(dir, 'modules', 'box'), { recursive: true });
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

const messy = `# The shop's configuration.
projects:
  shop:
    # shown in the console
    description: Shop
    name: shop
version: 1
modules:
  box: { source: ./modules/box }
`;
const canonical = `# The shop's configuration.
version: 1

projects:
  shop:
    name: shop
    # shown in the console
    description: Shop

modules:
  box: { source: ./modules/box }
`;
const moduleMessy = 'gateways:\n  main:\n    credentials:\n      - openai\n    project: box\n';

test('fmt --check lists the files that differ and exits 3 without writing; fmt rewrites them, keeping comments; then --check passes', async () => {
  writeFileSync(join(dir, 'main.yaml'), messy);
  writeFileSync(join(dir, 'modules', 'box', 'box.yaml'), moduleMessy);
  writeFileSync(join(dir, 'done.yml'), 'version: 1\n');

  const check = await fmt(join('infra'), '--check');
  expect(check.code).toBe(exitCodes.unformatted);
  expect(check.stdout).toBe(`${join('infra', 'main.yaml')}\n${join('infra', 'modules', 'box', 'box.yaml')}\n`);
  expect(readFileSync(join(dir, 'main.yaml'), 'utf8')).toBe(messy);

  const diff = await fmt('infra', '--check', '--diff');
  expect(diff.code).toBe(3);
  expect(diff.stdout).toContain(`--- ${join('infra', 'main.yaml')}\tcurrent\n+++ ${join('infra', 'main.yaml')}\tformatted\n`);
  expect(diff.stdout).toContain('-    name: shop\n-version: 1\n');
  expect(diff.stdout).toContain('+version: 1\n+\n');
  expect(readFileSync(join(dir, 'main.yaml'), 'utf8')).toBe(messy);

  const write = await fmt('infra');
  expect(write.code).toBe(exitCodes.ok);
  expect(write.stdout).toBe(check.stdout);
  expect(readFileSync(join(dir, 'main.yaml'), 'utf8')).toBe(canonical);
  expect(readFileSync(join(dir, 'modules', 'box', 'box.yaml'), 'utf8')).toBe(
    'gateways:\n  main:\n    project: box\n    credentials: [openai]\n',
  );

  const again = await fmt('infra', '--check');
  expect(again).toMatchObject({ code: 0, stdout: '', stderr: '' });
});

test('a file that does not parse: its file:line:col, exit 1, and no file is written', async () => {
  writeFileSync(join(dir, 'a.yaml'), messy);
  writeFileSync(join(dir, 'b.yaml'), 'projects:\n  shop:\n    description: [unclosed\n');
  const run = await fmt('infra');
  expect(run.code).toBe(exitCodes.error);
  expect(run.stderr).toMatch(new RegExp(`^${join('infra', 'b.yaml').replace(/[.]/g, '\\.')}:\\d+:\\d+: error: YAML syntax error`, 'm'));
  expect(run.stderr).toContain('Nothing was formatted: fix the files above first.');
  expect(run.stdout).toBe('');
  expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(messy);
});

test('fmt on a folder with no configuration files says so', async () => {
  const run = await fmt('infra/modules');
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('No configuration files in');
});
