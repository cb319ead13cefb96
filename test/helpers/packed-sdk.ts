// An application's folder with `@cplane/sdk` installed from its packed tarball, offline, as an application installs
// it: `npm pack` of packages/sdk (from the dist/ the build wrote: never rebuilt under other tests), with its one
// dependency packed from the root's node_modules and installed beside it (npm's cache holds the tarballs `npm
// install` fetched for the lockfile, but not the registry's metadata that resolving a range from the cache needs, so
// on a new machine `--offline` could not resolve `@noble/ciphers` by itself).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');

/** Packs the SDK into `temp` and installs it into `app` (a folder with a package.json); returns the tarball's name. */
export function installPackedSdk(temp: string, app: string): string {
  const sdk = join(root, 'packages', 'sdk');
  if (!existsSync(join(sdk, 'dist', 'index.js'))) throw new Error('packages/sdk is built by `npm run build`');
  const pack = (cwd: string) =>
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', temp], { cwd, encoding: 'utf8' }).trim();
  const tarball = pack(sdk);
  const ciphers = pack(join(root, 'node_modules', '@noble', 'ciphers'));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(temp, tarball), join(temp, ciphers)], {
    cwd: app,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return tarball;
}
