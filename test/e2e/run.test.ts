// `cplane run` hands record values to a command's environment, through the real CLI: as cplane (state key, by
// address) and as the Service Account the record is granted to (its key and pinned writer key, by id). The child
// prints a hash of what it got, never the value; its exit code is cplane's; SIGTERM and SIGINT sent to cplane reach it; and a
// record that cannot be read stops the run before the command starts (its marker file is never made).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { privateKeyOf, testWriter } from '../helpers/readers.js';
import { acme, world, type World } from './helpers.js';

const ciDeployer = fixtures.serviceAccounts[0]!;
const STRIPE_KEY = 'sk_live_e2e_run_value_4417';
const OTHER_KEY = 'sk_live_e2e_run_never_granted_5521';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A child that prints the hash of $SECRET (or `unset`) and whether it can see cplane's state key, then exits 7. */
const hashChild = [
  process.execPath,
  '-e',
  "const s = process.env.SECRET; process.stdout.write((s === undefined ? 'unset' : require('crypto').createHash('sha256').update(s).digest('hex')) + ' state-key:' + (process.env.CPLANE_STATE_KEY === undefined ? 'hidden' : 'seen')); process.exit(7)",
];

const STATE_PASSWORD = 'pg_pass_e2e_run_7731';
/**
 * A child that prints what of its environment the test asks about, never a value: the names of the CPLANE_* variables
 * it sees, whether any value holds the state URL's password, and the hash (or `unset`) of each variable named.
 */
const envChild = (...names: string[]) => [
  process.execPath,
  '-e',
  `const e = process.env, h = (s) => s === undefined ? 'unset' : require('crypto').createHash('sha256').update(s).digest('hex');
process.stdout.write(JSON.stringify({ cplane: Object.keys(e).filter((n) => n.startsWith('CPLANE_')).sort(), password: Object.values(e).some((v) => v.includes(${JSON.stringify(STATE_PASSWORD)})), ${names.map((n) => `${n}: h(e.${n})`).join(', ')} }))`,
];

let w: World;
let writerKey: string;
const recordId = async (name: string) => (await w.client.listAll('listRecords', {})).find((r) => r.name === name)!.record_id;
const asServiceAccount = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  w.cliAs(fixtures.tokens.serviceAccount, ['run', ...args], {
    CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
    CPLANE_WRITER_KEY: writerKey,
    ...extra,
  });

beforeAll(async () => {
  w = await world({ account: acme });
  w.config(`version: 1
projects:
  shop:
    name: shop-run
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants: { serviceAccounts: [ci-deployer] }
      other-key:
        value: { env: OTHER_KEY }
`);
  // Arrangement, in-process (the CLI's entry, no subprocess): `cplane run` below runs the real CLI.
  const apply = await w.run(['apply', w.dir, '--auto-approve'], { STRIPE_KEY, OTHER_KEY });
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  writerKey = (JSON.parse((await w.run(['writer-key', w.dir, '--json'])).stdout) as { publicKey: string }).publicKey;
});
afterAll(async () => w.close());

describe('cplane run', () => {
  it("as cplane, by address: the command gets the value (not the state key), and its exit code is cplane's", async () => {
    const run = await w.cli(['run', w.dir, '--env', 'SECRET=record.shop/stripe-key', '--', ...hashChild]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${sha256(STRIPE_KEY)} state-key:hidden`);
    expect(run.code).toBe(7);
  });

  it('as the Service Account the record is granted to, by record id', async () => {
    const run = await asServiceAccount(['--env', `SECRET=${await recordId('stripe-key')}`, '--', ...hashChild]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${sha256(STRIPE_KEY)} state-key:hidden`);
    expect(run.code).toBe(7);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)("passes %s sent to cplane on to the command, and exits with the command's code", async (signal, code) => {
    const child = `process.on('${signal}', () => { process.stdout.write('child got ${signal}'); process.exit(${code}); }); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`;
    let sent = false;
    const run = await w.cli(
      ['run', w.dir, '--env', 'SECRET=record.shop/stripe-key', '--', process.execPath, '-e', child],
      {},
      (soFar, cplane) => {
        if (!sent && soFar.includes('ready')) {
          sent = true;
          cplane.kill(signal);
        }
      },
    );
    expect(run.stdout).toBe(`ready\nchild got ${signal}`);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(code);
  });

  it("stops before the command starts when a record is not granted to the reader, with the API's reason", async () => {
    const marker = join(w.temp, 'started-not-granted');
    const run = await asServiceAccount([
      '--env',
      `A=${await recordId('stripe-key')}`,
      '--env',
      `B=${await recordId('other-key')}`,
      '--',
      process.execPath,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not granted to this reader');
    expect(existsSync(marker)).toBe(false);
  });

  it('stops before the command starts when the value was not wrapped by a writer the reader pins (WRAP_UNTRUSTED_WRITER)', async () => {
    const marker = join(w.temp, 'started-untrusted');
    const run = await asServiceAccount(
      [
        '--env',
        `A=${await recordId('stripe-key')}`,
        '--',
        process.execPath,
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
      ],
      { CPLANE_WRITER_KEY: testWriter.publicKey },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('WRAP_UNTRUSTED_WRITER');
    expect(existsSync(marker)).toBe(false);
  });

  it("keeps cplane's credentials and the configuration's secret sources from the command; --pass-env lets one through", async () => {
    // The state URL holds a password; as a reader by record id the state is never opened, so no database is needed.
    const run = await asServiceAccount(
      [
        '--env',
        `SECRET=${await recordId('stripe-key')}`,
        '--pass-env',
        'OTHER_KEY',
        w.dir,
        '--',
        ...envChild('SECRET', 'STRIPE_KEY', 'OTHER_KEY', 'PLAIN'),
      ],
      {
        CPLANE_STATE: `postgres://cplane:${STATE_PASSWORD}@127.0.0.1:1/cplane`,
        CPLANE_ACCOUNT: acme,
        STRIPE_KEY,
        OTHER_KEY,
        PLAIN: 'an ordinary variable',
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      // Not CPLANE_TOKEN (the caller's token), CPLANE_STATE (with its password), CPLANE_SA_KEY, CPLANE_WRITER_KEY, CPLANE_ACCOUNT.
      cplane: [],
      password: false,
      SECRET: sha256(STRIPE_KEY),
      // A secret source of the configuration (`value: { env: STRIPE_KEY }`): withheld.
      STRIPE_KEY: 'unset',
      // Another, let through on purpose with --pass-env.
      OTHER_KEY: sha256(OTHER_KEY),
      PLAIN: sha256('an ordinary variable'),
    });
  });

  it("withholds the secret sources of the configuration's modules too, and --pass-env CPLANE_TOKEN passes the token", async () => {
    const app = join(w.temp, 'app');
    mkdirSync(join(app, 'team'), { recursive: true });
    writeFileSync(join(app, 'main.yaml'), 'version: 1\nmodules:\n  team: { source: ./team }\n');
    writeFileSync(
      join(app, 'team', 'main.yaml'),
      'version: 1\nprojects:\n  team:\n    records:\n      key: { value: { env: MODULE_SECRET } }\n',
    );
    const run = await asServiceAccount(
      [
        '--env',
        `SECRET=${await recordId('stripe-key')}`,
        '--pass-env',
        'CPLANE_TOKEN',
        app,
        '--',
        ...envChild('MODULE_SECRET', 'CPLANE_TOKEN'),
      ],
      {
        CPLANE_ACCOUNT: acme,
        MODULE_SECRET: 'module secret value',
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      cplane: ['CPLANE_TOKEN'],
      password: false,
      MODULE_SECRET: 'unset',
      CPLANE_TOKEN: sha256(fixtures.tokens.serviceAccount),
    });
  });

  it('withholds every variable an interpolated source name can become (`DB_PASSWORD_${var.env}`), whatever its value', async () => {
    const app = join(w.temp, 'app-interpolated');
    mkdirSync(app, { recursive: true });
    writeFileSync(
      join(app, 'main.yaml'),
      `version: 1
variables:
  env: { type: string, default: dev }
projects:
  db:
    records:
      password: { value: { env: "DB_PASSWORD_\${var.env}" } }
`,
    );
    const run = await asServiceAccount(
      [
        '--env',
        `SECRET=${await recordId('stripe-key')}`,
        app,
        '--',
        ...envChild('DB_PASSWORD_dev', 'DB_PASSWORD_prod', 'DB_PASSWORD', 'PLAIN'),
      ],
      {
        CPLANE_ACCOUNT: acme,
        DB_PASSWORD_dev: 'dev database password',
        DB_PASSWORD_prod: 'prod database password',
        DB_PASSWORD: 'x',
        PLAIN: 'plain',
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      cplane: [],
      password: false,
      DB_PASSWORD_dev: 'unset',
      DB_PASSWORD_prod: 'unset',
      // Not a name the source can become: kept.
      DB_PASSWORD: sha256('x'),
      PLAIN: sha256('plain'),
    });
  });

  it('hands everything after -- to the command, --help included', async () => {
    const run = await w.cli([
      'run',
      w.dir,
      '--env',
      'SECRET=record.shop/stripe-key',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write(process.argv.slice(1).join(' '))",
      '--',
      '--help',
      '-h',
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('--help -h');
    expect(run.code).toBe(0);
  });

  it('refuses a malformed --env and a missing command with what to write', async () => {
    const bad = await w.cli(['run', w.dir, '--env', '1X=record.shop/stripe-key', '--', 'true']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--env "1X=record.shop/stripe-key": expected NAME=ADDRESS or NAME=RECORD_ID');
    const none = await w.cli(['run', w.dir, '--env', 'SECRET=record.shop/stripe-key']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No command to run: give it after --.');
  });

  it('never shows a value in its own output', async () => {
    // The runs that could show one, in-process (the CLI's entry, no subprocess), so the scan needs no earlier test:
    // as cplane by address, as the Service Account refused a record not granted to it, and a malformed --env.
    await w.run(['run', w.dir, '--env', 'SECRET=record.shop/stripe-key', '--', ...hashChild]);
    const { CPLANE_STATE_KEY: _stateKey, ...readerEnv } = w.env;
    const refused = await runInProcess(
      ['run', '--env', `A=${await recordId('stripe-key')}`, '--env', `B=${await recordId('other-key')}`, '--', 'true'],
      {
        ...readerEnv,
        CPLANE_TOKEN: fixtures.tokens.serviceAccount,
        CPLANE_SA_KEY: privateKeyOf(ciDeployer.id),
        CPLANE_WRITER_KEY: writerKey,
      },
      w.temp,
    );
    w.outputs.push(refused.stdout, refused.stderr);
    expect(refused.stderr).toContain('is not granted to this reader');
    await w.run(['run', w.dir, '--env', '1X=record.shop/stripe-key', '--', 'true']);
    for (const output of w.outputs) {
      expect(output).not.toContain(STRIPE_KEY);
      expect(output).not.toContain(OTHER_KEY);
    }
  });
});
