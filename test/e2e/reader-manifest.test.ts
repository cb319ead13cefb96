// An application given two settings, the reader manifest (public) and CPLANE_READER (its one secret), reads its
// secrets by name. A configuration with two deployments (staging and prod, workspaces of one account) grants
// ci-deployer two records and the record a renewing gateway token is delivered to; `cplane reader-manifest --all`
// writes the manifest from the configuration and state; `cplane reader-credential` makes the credential. Then, from
// a separate folder holding only the packed SDK, the manifest and the credential: both records and the token read
// by name in both deployments; a name not granted is refused by name. After the emulator's clock moves into the
// renewal window and `cplane reconcile` renews the token, a running process watching the token sees the new one, and
// `cplane run --watch` restarts its child once, with it. The CLI reads by name too, with no configuration, state or
// state key. The applies that arrange the story run in-process; what the application and `cplane run` do runs as
// real processes.
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeReaderCredential } from '@cplane/sdk';
import { fixtures } from '../../src/emulator/fixtures.js';
import { builtCli } from '../helpers/built-cli.js';
import { installPackedSdk } from '../helpers/packed-sdk.js';
import { privateKeyOf } from '../helpers/readers.js';
import { running } from '../helpers/processes.js';
import { acme, world, type World } from './helpers.js';

const root = resolve(import.meta.dirname, '..', '..');
const ciDeployer = fixtures.serviceAccounts[0]!;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const values = {
  staging: {
    STRIPE_KEY: 'sk_test_reader_manifest_staging_3391',
    DB_PASSWORD: 'db-staging-reader-manifest-7720',
    OTHER_KEY: 'never-granted-staging-1180',
  },
  prod: {
    STRIPE_KEY: 'sk_live_reader_manifest_prod_8812',
    DB_PASSWORD: 'db-prod-reader-manifest-2264',
    OTHER_KEY: 'never-granted-prod-5573',
  },
};
type Deployment = keyof typeof values;

const configuration = `version: 1
variables:
  env: { type: string }
deployments:
  staging: { account: ${acme}, workspace: staging, variables: { env: staging } }
  prod: { account: ${acme}, workspace: prod, variables: { env: prod } }
projects:
  payments:
    name: payments-\${var.env}
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants: { serviceAccounts: [ci-deployer] }
      db-password:
        value: { env: DB_PASSWORD }
        grants: { serviceAccounts: [ci-deployer] }
      other-key:
        value: { env: OTHER_KEY }
  core:
    name: core-\${var.env}
    records:
      ci-token:
        grants: { serviceAccounts: [ci-deployer] }
credentials:
  openai: { provider: openai, label: "openai-\${var.env}", secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: core
    name: Gateway \${var.env}
    slug: \${var.env}-main
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci:
        scopes: [run]
        expiresInDays: 30
        renewBeforeDays: 7
        deliverTo: { record: core/ci-token }
`;

let w: World;
let app: string;
let manifestPath: string;
let credential: string;
/** Every secret of the story, for the leak scans. */
const secrets: string[] = [];

interface Manifest {
  version: number;
  serviceAccount: string;
  deployments: Record<
    string,
    {
      baseUrl: string;
      accountId: string;
      serviceAccountId?: string;
      writerKeys: { publicKey: string; keyId: string }[];
      records: Record<string, { recordId: string; deliveredToken?: string }>;
    }
  >;
}
const manifest = (): Manifest => JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
const statePathOf = (deployment: Deployment) => join(w.dir, '.cplane', acme, 'workspaces', deployment, 'state.json');
const stateEntry = (deployment: Deployment, address: string) =>
  (JSON.parse(readFileSync(statePathOf(deployment), 'utf8')) as { resources: Record<string, { id: string }> }).resources[address]!;

/** The application's whole environment: the two settings (and which deployment it runs in). */
const appEnv = (deployment: Deployment, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  CPLANE_MANIFEST: manifestPath,
  CPLANE_READER: credential,
  CPLANE_DEPLOYMENT: deployment,
  ...extra,
});

/** A script of the application, run from its folder (asynchronously: the emulator answers from this process). */
async function inApp(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, args, { cwd: app, env, encoding: 'utf8' }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** Prints `NAME sha256(value)` per name argument: what the application read, checked without printing it. */
const READ_HASHES = `import { createHash } from 'node:crypto';
import { createReader } from '@cplane/sdk';
try {
  const reader = createReader();
  try {
    for (const name of process.argv.slice(2)) process.stdout.write(name + ' ' + createHash('sha256').update(await reader.get(name)).digest('hex') + '\\n');
  } finally { await reader.close(); }
} catch (error) { process.stderr.write(error.code + ': ' + error.message + '\\n'); process.exitCode = 1; }`;

/** Watches the token; prints `version N sha256(value)` at each value, `error CODE` for a refresh that failed. */
const WATCH_TOKEN = `import { createHash } from 'node:crypto';
import { createReader } from '@cplane/sdk';
const reader = createReader();
reader.watch('core/ci-token', (value, read) => process.stdout.write('version ' + read.version + ' ' + createHash('sha256').update(value).digest('hex') + '\\n'), {
  intervalMs: 100, onError: (error) => process.stderr.write('error ' + error.code + '\\n') });
process.once('SIGTERM', () => void reader.close());`;

beforeAll(async () => {
  w = await world({ account: acme, clockOffset: '-25d' });
  w.config(configuration);
  for (const deployment of ['staging', 'prod'] as const) {
    const applied = await w.run(['apply', w.dir, '--deployment', deployment, '--auto-approve'], values[deployment]);
    expect(applied.code, applied.stderr).toBe(0);
    secrets.push(...Object.values(values[deployment]));
  }
  manifestPath = join(w.temp, 'cplane-reader.json');
  const written = await w.cli(['reader-manifest', 'ci-deployer', w.dir, '--all', '--out', manifestPath]);
  expect(written.stderr).toBe(
    `Reader manifest of ci-deployer written to ${manifestPath} (staging: 3 record(s), prod: 3 record(s)). It holds no secret: commit it with the application, which reads with it and CPLANE_READER.\n`,
  );
  expect(written.code).toBe(0);
  const keyFile = join(w.temp, 'ci-deployer.key');
  writeFileSync(keyFile, privateKeyOf(ciDeployer.id), { mode: 0o600 });
  const made = await w.cli(['reader-credential', '--token-env', 'SA_TOKEN', '--key-file', keyFile], {
    SA_TOKEN: fixtures.tokens.serviceAccount,
  });
  expect(made.code, made.stderr).toBe(0);
  credential = made.stdout.trim();
  secrets.push(credential, fixtures.tokens.serviceAccount, privateKeyOf(ciDeployer.id));
  // The application's folder: the packed SDK, the example, the manifest. Nothing of cplane.
  app = join(w.temp, 'app');
  mkdirSync(app);
  for (const file of ['package.json', 'read-by-name.mjs']) cpSync(join(root, 'examples', 'sdk', file), join(app, file));
  installPackedSdk(w.temp, app);
  writeFileSync(join(app, 'read-hashes.mjs'), READ_HASHES);
  writeFileSync(join(app, 'watch-token.mjs'), WATCH_TOKEN);
}, 180_000);
afterAll(async () => {
  await w?.close();
});

/** A child that exits 7 when it was given X, 3 when not. */
const exitsWithX = [process.execPath, '-e', 'process.exit(process.env.X ? 7 : 3)'];

describe('the reader manifest', () => {
  it('names each record the Service Account may read, per deployment, with its id from the state; the delivered token marked; nothing secret', () => {
    const written = manifest();
    expect(written.version).toBe(1);
    expect(written.serviceAccount).toBe('ci-deployer');
    expect(Object.keys(written.deployments)).toEqual(['staging', 'prod']);
    for (const deployment of ['staging', 'prod'] as const) {
      const entry = written.deployments[deployment]!;
      expect(entry).toMatchObject({ baseUrl: w.emulator.url, accountId: acme, serviceAccountId: ciDeployer.id });
      expect(entry.writerKeys.map((k) => k.publicKey)).toEqual([w.writerKey]);
      expect(entry.records).toEqual({
        'core/ci-token': { recordId: stateEntry(deployment, 'record.core/ci-token').id, deliveredToken: 'gateway_token.main/ci' },
        'payments/db-password': { recordId: stateEntry(deployment, 'record.payments/db-password').id },
        'payments/stripe-key': { recordId: stateEntry(deployment, 'record.payments/stripe-key').id },
      });
    }
    expect(written.deployments.staging!.records['payments/stripe-key']!.recordId).not.toBe(
      written.deployments.prod!.records['payments/stripe-key']!.recordId,
    );
    const text = readFileSync(manifestPath, 'utf8');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('--deployment chooses as plan does; a Service Account granted nothing, a name without a manifest and --watch without one are refused, saying what to do', async () => {
    const prod = await w.run(['reader-manifest', 'ci-deployer', w.dir, '--deployment', 'prod']);
    expect(prod.code, prod.stderr).toBe(0);
    expect(JSON.parse(prod.stdout)).toEqual({ ...manifest(), deployments: { prod: manifest().deployments.prod } });
    const unknown = await w.run(['reader-manifest', 'ci-deployer', w.dir, '--deployment', 'prd']);
    expect(unknown.stderr).toContain('--deployment prd: the configuration has no deployment "prd"');
    const nothing = await w.run(['reader-manifest', 'legacy-bot', w.dir, '--all']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toBe(
      'Error: Service Account legacy-bot may read no record in deployment staging: the configuration grants it none, or they are not applied yet.\nGrant records to it (grants.serviceAccounts: [legacy-bot]) and run `cplane apply` first.\n',
    );
    const byName = await w.run(['run', '--env', 'T=core/ci-token', '--', 'true']);
    expect(byName.stderr).toBe(
      'Error: --env T=core/ci-token: "core/ci-token" is neither a record address nor a record id, and no reader manifest names it.\nRead by name with --manifest FILE (or CPLANE_MANIFEST), or give the address record.core/ci-token.\n',
    );
    // With --deployment the command after -- reaches the run (it said "No command to run" whatever followed).
    const inProd = await w.run(['run', w.dir, '--deployment', 'prod', '--env', 'X=record.payments/stripe-key', '--', ...exitsWithX]);
    expect(inProd.stderr).toBe('');
    expect(inProd.code).toBe(7);
    const watch = await w.run(['run', '--watch', '--env', 'X=record.payments/stripe-key', '--', 'true']);
    expect(watch.stderr).toBe(
      'Error: --watch reads by name: it needs --manifest FILE.\nGive --manifest FILE and --env NAME=PROJECT/RECORD (docs/sdk.md), or leave --watch out.\n',
    );
  });

  it('--out into a folder that does not exist makes the folder (it failed with ENOENT, "a bug")', async () => {
    const nested = join(w.temp, 'not', 'made', 'reader.json');
    const written = await w.run(['reader-manifest', 'ci-deployer', w.dir, '--all', '--out', nested]);
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(readFileSync(nested, 'utf8'))).toEqual(manifest());
  });

  it('reader-credential takes the key from stdin, and refuses a personal access token', () => {
    const make = (token: string) =>
      spawnSync(process.execPath, [builtCli(), 'reader-credential', '--token-env', 'SA_TOKEN'], {
        input: `${privateKeyOf(ciDeployer.id)}\n`,
        env: { PATH: process.env.PATH, SA_TOKEN: token, NO_COLOR: '1' },
        encoding: 'utf8',
      });
    const fromStdin = make(fixtures.tokens.serviceAccount);
    expect(fromStdin.status, fromStdin.stderr).toBe(0);
    expect(decodeReaderCredential(fromStdin.stdout, 'stdout')).toEqual({
      token: fixtures.tokens.serviceAccount,
      privateKey: new Uint8Array(Buffer.from(privateKeyOf(ciDeployer.id), 'base64')),
    });
    const human = make(fixtures.tokens.admin);
    expect(human.status).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toBe(
      "Error: READER_CREDENTIAL_INVALID: The token of a reader credential must be a Service Account token (sk-svc-sa-…): an application never holds a personal access token.\nCheck SA_TOKEN: it must hold the Service Account's token (sk-svc-sa-…).\n",
    );
  });

  it('the credential is one string that holds neither part in clear, and a damaged one is refused by part without being echoed', async () => {
    expect(credential).toMatch(/^cplane-reader-1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{8}$/);
    expect(credential).not.toContain(fixtures.tokens.serviceAccount);
    const cut = credential.slice(0, -3);
    const run = await inApp(['read-hashes.mjs', 'payments/stripe-key'], appEnv('staging', { CPLANE_READER: cut }));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'READER_CREDENTIAL_INVALID: CPLANE_READER fails its check (its last part): it was cut short or altered in a copy; copy it again whole.\n',
    );
  });
});

describe('an application with only the packed SDK, the manifest and CPLANE_READER', () => {
  it('reads both records and the delivered token by name, in both deployments', async () => {
    for (const deployment of ['staging', 'prod'] as const) {
      const token = (
        await w.run(['output', 'gateway_token.main/ci', w.dir, '--reveal', '--state', statePathOf(deployment), '--account', acme])
      ).stdout.trim();
      secrets.push(token);
      const run = await inApp(['read-hashes.mjs', 'payments/stripe-key', 'payments/db-password', 'core/ci-token'], appEnv(deployment));
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(
        `payments/stripe-key ${sha256(values[deployment].STRIPE_KEY)}\npayments/db-password ${sha256(values[deployment].DB_PASSWORD)}\ncore/ci-token ${sha256(token)}\n`,
      );
    }
    const example = await inApp(['read-by-name.mjs', 'payments/stripe-key'], appEnv('prod'));
    expect(example).toEqual({
      code: 0,
      stdout: `read payments/stripe-key in prod: version 1 (${values.prod.STRIPE_KEY.length} characters)\n`,
      stderr: '',
    });
  });

  it('is refused a name not granted (with a did-you-mean) and a deployment not in the manifest, by name', async () => {
    const notGranted = await inApp(['read-hashes.mjs', 'payments/other-key'], appEnv('staging'));
    expect(notGranted.stderr).toBe(
      'SECRET_NOT_IN_MANIFEST: Secret "payments/other-key" is not granted to Service Account ci-deployer in deployment "staging". If it should be, the owner of the configuration grants it (grants.serviceAccounts of the record), applies, and writes the manifest again.\n',
    );
    const typo = await inApp(['read-hashes.mjs', 'payments/stripe-kye'], appEnv('staging'));
    expect(typo.stderr).toContain(
      'SECRET_NOT_IN_MANIFEST: Secret "payments/stripe-kye" is not granted to Service Account ci-deployer in deployment "staging" (did you mean "payments/stripe-key"?).',
    );
    const deployment = await inApp(['read-hashes.mjs', 'payments/stripe-key'], { ...appEnv('staging'), CPLANE_DEPLOYMENT: 'prd' });
    expect(deployment.stderr).toMatch(
      /^DEPLOYMENT_NOT_IN_MANIFEST: Deployment "prd" is not in the reader manifest \S+ \(did you mean "prod"\?\); it has staging, prod\./,
    );
    for (const run of [notGranted, typo, deployment]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
    }
  });
});

describe('the CLI reads by name as the Service Account, with no configuration, state or state key', () => {
  const asReader = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    promisify(execFile)(process.execPath, [builtCli(), ...args], {
      cwd: app,
      env: { PATH: process.env.PATH, CPLANE_READER: credential, NO_COLOR: '1', ...extra },
      encoding: 'utf8',
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  const hashChild = [
    process.execPath,
    '-e',
    "process.stdout.write(require('crypto').createHash('sha256').update(process.env.STRIPE).digest('hex') + ' reader:' + (process.env.CPLANE_READER === undefined ? 'hidden' : 'seen'))",
  ];

  it('cplane read --manifest and cplane run --manifest', async () => {
    const read = await asReader(['read', '--manifest', manifestPath, '--deployment', 'prod', 'payments/stripe-key']);
    expect(read).toEqual({ code: 0, stdout: `${values.prod.STRIPE_KEY}\n`, stderr: '' });
    const run = await asReader(['run', '--manifest', manifestPath, '--env', 'STRIPE=payments/stripe-key', '--', ...hashChild], {
      CPLANE_DEPLOYMENT: 'staging',
    });
    expect(run).toEqual({ code: 0, stdout: `${sha256(values.staging.STRIPE_KEY)} reader:hidden`, stderr: '' });
  });

  it('takes the manifest from CPLANE_MANIFEST, and says which flag of reading by id it does not use', async () => {
    const read = await asReader(['read', 'payments/db-password'], { CPLANE_MANIFEST: manifestPath, CPLANE_DEPLOYMENT: 'prod' });
    expect(read).toEqual({ code: 0, stdout: `${values.prod.DB_PASSWORD}\n`, stderr: '' });
    const keyFile = await asReader(['read', '--manifest', manifestPath, '--key-file', 'reader.key', 'payments/db-password'], {
      CPLANE_DEPLOYMENT: 'prod',
    });
    expect(keyFile).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: --key-file is not used when reading by name: the manifest and CPLANE_READER say where, what and who.\nLeave --key-file out, or read by address or record id without --manifest.\n',
    });
  });

  it('says which name is not granted, and what to do', async () => {
    const run = await asReader(['read', '--manifest', manifestPath, '--deployment', 'staging', 'payments/other-key']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'Error: SECRET_NOT_IN_MANIFEST: Secret "payments/other-key" is not granted to Service Account ci-deployer in deployment "staging". If it should be',
    );
    expect(run.stderr).toContain('Names are PROJECT/RECORD as the configuration writes them');
    expect(run.stderr).not.toContain(credential);
  });
});

describe('a renewal reaches running processes', () => {
  it(
    'a process watching the token sees the new one, and `cplane run --watch` restarts its child once with it',
    { timeout: 120_000 },
    async () => {
      const oldToken = stateEntry('staging', 'gateway_token.main/ci').id;
      const watcher = running(process.execPath, ['watch-token.mjs'], { cwd: app, env: appEnv('staging') });
      // The child prints the hash of its token at each start (once it can be stopped), then runs until it is stopped.
      const child =
        "process.on('SIGTERM', () => process.exit(0)); process.stdout.write('start ' + require('crypto').createHash('sha256').update(process.env.TOKEN).digest('hex') + '\\n'); setInterval(() => {}, 1000)";
      const run = running(
        process.execPath,
        [
          builtCli(),
          'run',
          '--manifest',
          manifestPath,
          '--env',
          'TOKEN=core/ci-token',
          '--watch',
          '--interval',
          '100ms',
          '--grace',
          '5s',
          '--',
          process.execPath,
          '-e',
          child,
        ],
        {
          cwd: app,
          env: { PATH: process.env.PATH, CPLANE_READER: credential, CPLANE_DEPLOYMENT: 'staging', NO_COLOR: '1' },
        },
      );
      try {
        const before = await watcher.next(/^version 1 /);
        const started = await run.next(/^start /);
        expect(started.split(' ')[1]).toBe(before.split(' ')[2]);

        // Into the renewal window: the scheduled job renews the token and delivers it to the record (value version 2).
        w.emulator.setClockOffset(0);
        const renewed = await w.run(['reconcile', w.dir, '--deployment', 'staging'], values.staging);
        expect(renewed.code, renewed.stderr).toBe(0);
        const newTokenId = stateEntry('staging', 'gateway_token.main/ci').id;
        expect(newTokenId).not.toBe(oldToken);

        const after = await watcher.next(/^version 2 /);
        await run.next(new RegExp(`^start ${after.split(' ')[2]}$`));
        run.child.kill('SIGTERM');
        expect(await run.exited, JSON.stringify(run.output())).toBe(0);
        const { stdout, stderr } = run.output();
        // Started twice: with the old token, then once with the new one.
        expect(stdout).toBe(`${started}\nstart ${after.split(' ')[2]}\n`);
        // A poll between the new value's write and its wrap for the reader keeps the last good value, and says so.
        const said = stderr
          .split('\n')
          .filter(
            (line) =>
              line !== '' &&
              !line.startsWith('cplane run: kept the last good value of TOKEN: WRAP_OTHER_VERSION: Secret "core/ci-token": '),
          );
        expect(said).toEqual([`cplane run: TOKEN changed (value version 2); restarting ${process.execPath}.`]);
        // The watching process saw each version once, in order, and never an older one.
        expect(
          watcher
            .output()
            .stdout.split('\n')
            .filter(Boolean)
            .map((line) => line.split(' ')[1]),
        ).toEqual(['1', '2']);
      } finally {
        watcher.child.kill('SIGTERM');
        run.child.kill('SIGTERM');
        await Promise.all([watcher.exited, run.exited]);
      }
    },
  );
});
