// An application installs the SDK alone: `npm pack` of packages/sdk, installed with `npm install --offline` into an
// empty folder holding only the example application (examples/sdk), whose only dependency then resolves from npm's
// cache. The test prints what that costs (the package's own files, the whole install, the number of packages) and
// holds it to the goals of docs/sdk.md; then the example, run from that folder against the emulator, reads a record
// granted to its Service Account by cplane (without being told the account), and is refused one not granted to it
// with WRAP_NOT_GRANTED and a message that says who must act, never a cplane command.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { installPackedSdk } from '../helpers/packed-sdk.js';
import { privateKeyOf } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const root = resolve(import.meta.dirname, '..', '..');
const temp = mkdtempSync(join(tmpdir(), 'cplane-sdk-pack-'));
const app = join(temp, 'app');
const STRIPE_KEY = 'sk_live_sdk_package_6620';
const OTHER_KEY = 'sk_live_sdk_never_granted_1187';
const ciDeployer = fixtures.serviceAccounts[0]!;

let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  shop:
    name: shop-sdk
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants:
          serviceAccounts: [ci-deployer]
      other-key:
        value: { env: OTHER_KEY }
`);
  const apply = await w.run(['apply', w.dir, '--auto-approve'], { STRIPE_KEY, OTHER_KEY });
  expect(apply.stderr).toBe('');
  for (const record of await w.client.listAll('listRecords', {})) ids[record.name] = record.record_id;
});
afterAll(async () => {
  await w?.close();
  rmSync(temp, { recursive: true, force: true });
});

/** Bytes of every file under `dir`. */
const sizeOf = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, entry) => sum + (entry.isDirectory() ? sizeOf(join(dir, entry.name)) : statSync(join(dir, entry.name)).size),
    0,
  );
/** The packages installed under node_modules (`@scope/name` counted once each). */
const packagesIn = (modules: string): string[] =>
  readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));

/** The example application run from the install folder, as the Service Account, in its account. */
async function runExample(recordId: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH,
    CPLANE_BASE_URL: w.emulator.url,
    CPLANE_TOKEN: fixtures.tokens.serviceAccount,
    CPLANE_ACCOUNT: acme,
    CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
    CPLANE_WRITER_KEY: w.writerKey,
    RECORD_ID: recordId,
  };
  // Asynchronously: the emulator answers from this process.
  return promisify(execFile)(process.execPath, ['read-secret.mjs'], { cwd: app, env, encoding: 'utf8' }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

it('installs from its packed tarball into an empty folder, offline, within the goals of docs/sdk.md', { timeout: 120_000 }, () => {
  mkdirSync(app);
  for (const file of ['package.json', 'read-secret.mjs']) cpSync(join(root, 'examples', 'sdk', file), join(app, file));
  expect(installPackedSdk(temp, app)).toBe('cplane-sdk-0.1.0.tgz');

  const modules = join(app, 'node_modules');
  const own = sizeOf(join(modules, '@cplane', 'sdk'));
  const installed = sizeOf(modules);
  const dependencies = packagesIn(modules).filter((name) => name !== '@cplane/sdk');
  console.log(
    `@cplane/sdk installed: its own files ${(own / 1024).toFixed(1)} kB, ${(installed / 1024).toFixed(1)} kB in all, ${dependencies.length} dependency (${dependencies.join(', ')})`,
  );
  expect(own).toBeLessThan(200 * 1024);
  expect(installed).toBeLessThan(1.5 * 1024 * 1024);
  expect(dependencies.length).toBeLessThanOrEqual(2);
  const manifest = JSON.parse(readFileSync(join(modules, '@cplane', 'sdk', 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(Object.keys(manifest.dependencies)).toEqual(['@noble/ciphers']);
  // Only the built files: no sources, tests or source maps.
  expect(readdirSync(join(modules, '@cplane', 'sdk')).sort()).toEqual(['README.md', 'dist', 'package.json']);
});

it('reads the granted secret from there, in the account it names, and sees its value', async () => {
  const run = await runExample(ids['stripe-key']!);
  expect(run).toEqual({ code: 0, stdout: `read the secret (${STRIPE_KEY.length} characters)\n`, stderr: '' });
  // The example never prints the value; the same readSecret of the installed package, asked to, returns it.
  const script = `import { createClient, decodeReaderKey, readSecret } from '@cplane/sdk';
const client = createClient({ baseUrl: process.env.CPLANE_BASE_URL, token: process.env.CPLANE_TOKEN, accountId: process.env.CPLANE_ACCOUNT });
try { process.stdout.write(await readSecret(client, { recordId: process.env.RECORD_ID, privateKey: decodeReaderKey(process.env.CPLANE_SA_KEY, 'CPLANE_SA_KEY'), writerKeys: [process.env.CPLANE_WRITER_KEY] })); } finally { await client.close(); }`;
  const env = {
    PATH: process.env.PATH,
    CPLANE_BASE_URL: w.emulator.url,
    CPLANE_TOKEN: fixtures.tokens.serviceAccount,
    CPLANE_ACCOUNT: acme,
    CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
    CPLANE_WRITER_KEY: w.writerKey,
    RECORD_ID: ids['stripe-key']!,
  };
  const value = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env, encoding: 'utf8' });
  expect(value.stdout).toBe(STRIPE_KEY);
});

it('is refused a record not granted to it, with WRAP_NOT_GRANTED and who must act, never a cplane command', async () => {
  const run = await runExample(ids['other-key']!);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(
    /^cannot read the secret: WRAP_NOT_GRANTED: Record [0-9a-f-]{36} is not granted to this reader \(the API answered 409 service_account_grant_not_found, request id req_[0-9a-f-]+\)\. Ask the owner of the configuration that manages the record to grant it to this reader\.\n$/,
  );
  expect(run.stderr).not.toContain('cplane ');
  expect(run.stderr).not.toContain(OTHER_KEY);
});
