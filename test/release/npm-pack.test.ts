/**
 * Installs like a tool: `npm pack` makes a tarball that `npm install -g` puts on the PATH as `cplane`,
 * which then runs from any folder. The tarball is made from the dist/ that `npm test` has just built
 * (--ignore-scripts, so packing never rebuilds dist/ under the other tests), and installed into a
 * temporary prefix, never the machine's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { assertFreshBuild } from '../helpers/built-cli.js';

const root = resolve(import.meta.dirname, '..', '..');
const temp = mkdtempSync(join(tmpdir(), 'cplane-pack-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// Packing and installing fetch the dependencies (from npm's cache when it has them): minutes on a busy machine.
it('packs, installs with npm install -g, and runs `cplane --help` and `cplane validate` from another folder', { timeout: 300_000 }, () => {
  assertFreshBuild();
  npm(['pack', '--ignore-scripts', '--pack-destination', temp], root);
  const tarball = readdirSync(temp).find((name) => name.endsWith('.tgz'));
  expect(tarball).toBe(`cplane-${version}.tgz`);
  const prefix = join(temp, 'prefix');
  npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(temp, tarball!)], temp);

  const elsewhere = join(temp, 'elsewhere');
  cpSync(join(root, 'examples', 'quickstart'), join(elsewhere, 'infra'), { recursive: true });
  const cplane = (...args: string[]) =>
    spawnSync(join(prefix, 'bin', 'cplane'), args, {
      cwd: elsewhere,
      encoding: 'utf8',
      env: { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, HOME: temp },
    });

  const help = cplane('--help');
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^cplane: declarative provisioning for the control-plane API\n/);
  expect(cplane('--version').stdout).toBe(`cplane ${version}\n`);
  expect(cplane('validate', 'infra')).toMatchObject({
    status: 0,
    stdout: 'Configuration is valid: 8 resources in 1 file (without a value for "account": checked for type only).\n',
  });
});
