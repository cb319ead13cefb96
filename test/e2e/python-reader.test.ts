// Readers in every runtime, from one manifest and one credential: the same two secrets read by Node (createReader of
// the packed SDK), by Python (cplane_reader) and by `cplane-reader run -- python3 app.py` (the bin of the packed SDK),
// with identical values, and nothing of the reader's own settings (no CPLANE_* variable) in the command's
// environment; `cplane-reader read` and its file mode (mode 0600) give the same. Then a renewal: a Python process
// watching a delivered gateway token sees the new one within one interval of `reconcile`, without a restart, while
// `cplane-reader run --watch` restarts its command's whole process group with it. Also: the installed size.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { lyingProxy, type LyingProxy } from '../helpers/lying-proxy.js';
import { installPackedSdk } from '../helpers/packed-sdk.js';
import { privateKeyOf } from '../helpers/readers.js';
import { alive, running } from '../helpers/processes.js';
import { acme, world, type World } from './helpers.js';

const root = resolve(import.meta.dirname, '..', '..');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const values = { STRIPE_KEY: 'sk_live_python_reader_6620', DB_PASSWORD: 'db-python-reader-3317', OPENAI_API_KEY: 'sk-e2e-openai-secret' };
const configuration = `version: 1
projects:
  payments:
    name: payments-python-reader
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
        grants: { serviceAccounts: [ci-deployer] }
      db-password:
        value: { env: DB_PASSWORD }
        grants: { serviceAccounts: [ci-deployer] }
  core:
    description: Core
    records:
      ci-token:
        grants:
          serviceAccounts: [ci-deployer]
credentials:
  openai: { provider: openai, label: pyreader, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: core
    name: Python reader gateway
    slug: pyreader-main
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

/** Prints `NAME sha256(value)` for each name given, with Node's createReader. */
const NODE_READ = `import { createHash } from 'node:crypto';
import { createReader } from '@cplane/sdk';
const reader = createReader();
for (const name of process.argv.slice(2)) process.stdout.write(name + ' ' + createHash('sha256').update(await reader.get(name)).digest('hex') + '\\n');
await reader.close();`;
/** The same with cplane_reader. */
const PYTHON_READ = `import hashlib, sys
from cplane_reader import create_reader
with create_reader() as reader:
    for name in sys.argv[1:]:
        print(name, hashlib.sha256(reader.get(name).encode()).hexdigest())`;
/** The application `cplane-reader run` starts: hashes of its two variables, and every CPLANE_* variable it was given. */
const APP_PY = `import hashlib, json, os
print("payments/stripe-key", hashlib.sha256(os.environ["STRIPE_KEY"].encode()).hexdigest())
print("payments/db-password", hashlib.sha256(os.environ["DB_PASSWORD"].encode()).hexdigest())
print("cplane variables", json.dumps(sorted(n for n in os.environ if n.startswith("CPLANE_"))))`;
/** Watches the token; prints `version N sha256(value)` at each value, `error CODE` for a refresh that failed. */
const PYTHON_WATCH = `import hashlib, signal, sys, threading
from cplane_reader import create_reader
reader = create_reader()
done = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: done.set())
reader.watch("core/ci-token", lambda value, read: print("version", read.version, hashlib.sha256(value.encode()).hexdigest(), flush=True),
             interval=0.1, on_error=lambda error: print("error", error.code, file=sys.stderr, flush=True))
done.wait()
reader.close()`;
/** Ignores SIGTERM: a restart must end it with SIGKILL once --grace has passed, and wait for that. */
const STUBBORN_APP_PY = `import hashlib, os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("start", hashlib.sha256(os.environ["STRIPE_KEY"].encode()).hexdigest(), os.getpid(), flush=True)
while True:
    time.sleep(1)`;
/** Started by `cplane-reader run --watch`: a grandchild in its process group (its pid printed), then the token's hash. */
const GROUP_APP_PY = `import hashlib, os, subprocess, time
sleeper = subprocess.Popen(["sleep", "600"])
print("start", hashlib.sha256(os.environ["TOKEN"].encode()).hexdigest(), sleeper.pid, flush=True)
while True:
    time.sleep(1)`;

/**
 * The Python the readers run on: PYTHON, else python3 when it has `cryptography`, else Debian's (scripts/python-tests.sh
 * chooses, and installs, the same way).
 */
const python = [process.env.PYTHON, 'python3', '/usr/bin/python3'].find(
  (candidate) => candidate && spawnSync(candidate, ['-c', 'import cryptography'], { encoding: 'utf8' }).status === 0,
);
/** PATH with the chosen Python's folder first: the commands below, and those the recipes and cplane-reader start, say python3. */
const pathWithPython = () => (python && python !== 'python3' ? `${dirname(python)}:${process.env.PATH}` : (process.env.PATH ?? ''));
let w: World;
let proxy: LyingProxy;
let app: string;
let manifestPath: string;
let credential: string;
const bin = () => join(app, 'node_modules', '.bin', 'cplane-reader');
const appEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  HOME: w.temp,
  CPLANE_MANIFEST: manifestPath,
  CPLANE_READER: credential,
  PYTHONPATH: join(root, 'packages', 'python', 'src'),
  PATH: pathWithPython(),
  NO_COLOR: '1',
  ...extra,
});
/** Runs a command to its end (never spawnSync: the emulator and the proxy answer from this process). */
const finished = (command: string, args: string[], env = appEnv()) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    execFile(command, args, { cwd: app, env, encoding: 'utf8' }, (error, stdout, stderr) =>
      done({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
const run = async (command: string, args: string[], env = appEnv()) => {
  const done = await finished(command, args, env);
  expect(done.status, done.stderr).toBe(0);
  return done.stdout;
};

beforeAll(async () => {
  if (!python) throw new Error('python3 with the cryptography package is needed (Debian: apt-get install python3 python3-cryptography).');
  w = await world({ account: acme, clockOffset: '-25d' });
  w.config(configuration);
  const applied = await w.run(['apply', w.dir, '--auto-approve'], values);
  expect(applied.code, applied.stderr).toBe(0);
  manifestPath = join(w.temp, 'cplane-reader.json');
  const written = await w.run(['reader-manifest', 'ci-deployer', w.dir, '--out', manifestPath]);
  expect(written.code, written.stderr).toBe(0);
  proxy = await lyingProxy(w.emulator.url);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { deployments: { default: { baseUrl: string } } };
  // Every reader below goes through the proxy, which counts what they ask.
  manifest.deployments.default.baseUrl = proxy.url;
  writeFileSync(manifestPath, JSON.stringify(manifest));
  const keyFile = join(w.temp, 'ci-deployer.key');
  writeFileSync(keyFile, privateKeyOf(fixtures.serviceAccounts[0]!.id), { mode: 0o600 });
  const made = await w.run(['reader-credential', '--token-env', 'SA_TOKEN', '--key-file', keyFile], {
    SA_TOKEN: fixtures.tokens.serviceAccount,
  });
  expect(made.code, made.stderr).toBe(0);
  credential = made.stdout.trim();
  app = join(w.temp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  installPackedSdk(w.temp, app);
  writeFileSync(join(app, 'read.mjs'), NODE_READ);
  writeFileSync(join(app, 'read.py'), PYTHON_READ);
  writeFileSync(join(app, 'app.py'), APP_PY);
  writeFileSync(join(app, 'watch.py'), PYTHON_WATCH);
  writeFileSync(join(app, 'group-app.py'), GROUP_APP_PY);
  writeFileSync(join(app, 'stubborn-app.py'), STUBBORN_APP_PY);
}, 240_000);
afterAll(async () => {
  await proxy?.close();
  await w?.close();
});

describe('one manifest and one credential, three runtimes', () => {
  const names = ['payments/stripe-key', 'payments/db-password'];
  const expected = `payments/stripe-key ${sha256(values.STRIPE_KEY)}\npayments/db-password ${sha256(values.DB_PASSWORD)}\n`;

  it('Node createReader, Python cplane_reader and `cplane-reader run -- python3 app.py` read identical values', async () => {
    expect(await run(process.execPath, ['read.mjs', ...names])).toBe(expected);
    expect(await run('python3', ['read.py', ...names])).toBe(expected);
    const started = await run(
      bin(),
      ['run', '--env', 'STRIPE_KEY=payments/stripe-key', '--env', 'DB_PASSWORD=payments/db-password', '--', 'python3', 'app.py'],
      {
        ...appEnv(),
        CPLANE_DEPLOYMENT: 'default',
        CPLANE_TOKEN: 'sk-svc-pat-must-not-pass',
      },
    );
    expect(started).toBe(`${expected}cplane variables []\n`);
  });

  it('`cplane-reader read` prints the value; its file mode writes files only the owner can read', async () => {
    expect(await run(bin(), ['read', 'payments/stripe-key'])).toBe(`${values.STRIPE_KEY}\n`);
    const out = join(w.temp, 'secrets');
    await run(bin(), ['files', '--dir', out, 'payments/stripe-key', 'payments/db-password=db/password']);
    expect(readFileSync(join(out, 'payments', 'stripe-key'), 'utf8')).toBe(values.STRIPE_KEY);
    expect(readFileSync(join(out, 'db', 'password'), 'utf8')).toBe(values.DB_PASSWORD);
    for (const file of [join(out, 'payments', 'stripe-key'), join(out, 'db', 'password')]) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(out, 'db')).mode & 0o777).toBe(0o700);
  });

  it('refuses a name not granted with "did you mean", and never shows the credential', async () => {
    const refused = await finished(bin(), ['read', 'payments/strip-key']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /^cplane-reader: SECRET_NOT_IN_MANIFEST: Secret "payments\/strip-key" is not granted .*\(did you mean "payments\/stripe-key"\?\)/,
    );
    const usage = await finished(bin(), ['run', '--', 'true']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('run needs at least one --env VAR=PROJECT/RECORD.');
    for (const text of [refused.stderr, usage.stderr]) expect(text).not.toContain(credential);
  });

  it('installs in under 1 MB with its one dependency', () => {
    const kb = Number(execFileSync('du', ['-sk', join(app, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]);
    const own = Number(execFileSync('du', ['-sk', join(app, 'node_modules', '@cplane', 'sdk')], { encoding: 'utf8' }).split('\t')[0]);
    console.log(`cplane-reader installed (npm pack of @cplane/sdk + @noble/ciphers): ${kb} kB in all, ${own} kB of its own (du -sk)`);
    expect(kb).toBeLessThan(1024);
  });
});

describe('the container recipes (examples/containers), run as shell scripts: no container runtime is assumed', () => {
  const recipes = join(root, 'examples', 'containers');
  /** A Python that builds wheels offline: python3 when it has setuptools and wheel, else Debian's. */
  const builder = () =>
    ['python3', '/usr/bin/python3'].find(
      (python) => spawnSync(python, ['-c', 'import setuptools, wheel'], { encoding: 'utf8' }).status === 0,
    );

  it(
    'python.Dockerfile: the service reads its secret with cplane_reader, given only CPLANE_READER at run time',
    { timeout: 120_000 },
    async () => {
      const python = builder();
      if (!python)
        throw new Error(
          'building the wheel needs a Python with setuptools and wheel (Debian: apt-get install python3-setuptools python3-wheel).',
        );
      const context = join(w.temp, 'python-context');
      mkdirSync(context);
      // Built from a copy: a build in place leaves build/ and *.egg-info in the repository.
      const source = join(w.temp, 'python-source');
      cpSync(join(root, 'packages', 'python'), source, {
        recursive: true,
        filter: (path) => !/(^|\/)(build|tests|__pycache__|[^/]*\.egg-info)$/.test(path),
      });
      const wheels = await finished(python, [
        '-m',
        'pip',
        'wheel',
        '--no-build-isolation',
        '--no-deps',
        '--no-index',
        '-w',
        context,
        source,
      ]);
      expect(wheels.status, wheels.stderr).toBe(0);
      for (const file of ['app.py']) writeFileSync(join(context, file), readFileSync(join(recipes, file)));
      writeFileSync(join(context, 'cplane-reader.json'), readFileSync(manifestPath));
      const ran = await finished(
        join(recipes, 'run-recipe.sh'),
        [join(recipes, 'python.Dockerfile'), context, join(w.temp, 'python-root')],
        {
          PATH: pathWithPython(),
          CPLANE_READER: credential,
          PASS_ENV: 'CPLANE_READER',
        },
      );
      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stdout).toBe(`payments/stripe-key ${sha256(values.STRIPE_KEY)}\nsettings CPLANE_MANIFEST CPLANE_READER\n`);
    },
  );

  it('go.Dockerfile: `cplane-reader run` gives the service its secrets and nothing of its own', { timeout: 120_000 }, async () => {
    const context = join(w.temp, 'go-context');
    mkdirSync(context);
    // The Go build stage is not run (no Go toolchain is assumed): the service it would build is stood in for by a
    // program that prints what it was given, as the recipe's COPY --from names it.
    writeFileSync(
      join(context, 'server'),
      '#!/bin/sh\nprintf "%s %s\\n" OPENAI_TOKEN "$(printf %s "$OPENAI_TOKEN" | sha256sum | cut -d" " -f1)" STRIPE_KEY "$(printf %s "$STRIPE_KEY" | sha256sum | cut -d" " -f1)"\nenv | grep -c "^CPLANE_" || true\n',
      { mode: 0o755 },
    );
    /** `npm pack` of a folder into the context, under the name the recipe copies. */
    const pack = (cwd: string, name: string) => {
      const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', context], {
        cwd,
        encoding: 'utf8',
      }).trim();
      if (packed !== name) renameSync(join(context, packed), join(context, name));
    };
    pack(join(root, 'packages', 'sdk'), 'cplane-sdk-0.1.0.tgz');
    pack(join(root, 'node_modules', '@noble', 'ciphers'), 'noble-ciphers.tgz');
    writeFileSync(join(context, 'cplane-reader.json'), readFileSync(manifestPath));
    const ran = await finished(join(recipes, 'run-recipe.sh'), [join(recipes, 'go.Dockerfile'), context, join(w.temp, 'go-root')], {
      PATH: pathWithPython(),
      CPLANE_READER: credential,
      PASS_ENV: 'CPLANE_READER',
    });
    expect(ran.status, ran.stderr).toBe(0);
    const token = (await w.run(['output', 'gateway_token.main/ci', w.dir, '--reveal'])).stdout.trim();
    expect(ran.stdout).toBe(`OPENAI_TOKEN ${sha256(token)}\nSTRIPE_KEY ${sha256(values.STRIPE_KEY)}\n0\n`);
  });
});

describe('a renewal reaches a Python process and `cplane-reader run --watch`', () => {
  it(
    'the Python watcher sees the new token within one interval, and the command restarts as a whole group with it',
    { timeout: 180_000 },
    async () => {
      let lists = 0;
      proxy.setLie((request) => {
        if (request.method === 'GET' && request.path === '/v1/records') lists++;
        return undefined;
      });
      const watcher = running('python3', ['watch.py'], { cwd: app, env: appEnv() });
      const started = running(
        bin(),
        ['run', '--watch', '--interval', '100ms', '--grace', '5s', '--env', 'TOKEN=core/ci-token', '--', 'python3', 'group-app.py'],
        { cwd: app, env: appEnv() },
      );
      try {
        const before = await watcher.next(/^version 1 /);
        const first = await started.next(/^start /);
        const [, firstHash, sleeper] = first.split(' ');
        expect(firstHash).toBe(before.split(' ')[2]);
        expect(alive(Number(sleeper))).toBe(true);

        w.emulator.setClockOffset(0);
        const renewed = await w.run(['reconcile', w.dir], values);
        expect(renewed.code, renewed.stderr).toBe(0);
        const listsAtRenewal = lists;
        const after = await watcher.next(/^version 2 /);
        // Within one interval: the list asked while reconcile ended (at most), then the next one.
        expect(lists - listsAtRenewal).toBeLessThanOrEqual(2);
        expect(after.split(' ')[2]).not.toBe(firstHash);
        const newToken = (await w.run(['output', 'gateway_token.main/ci', w.dir, '--reveal'])).stdout.trim();
        expect(after.split(' ')[2]).toBe(sha256(newToken));
        expect(watcher.child.exitCode).toBe(null);

        await started.next(new RegExp(`^start ${after.split(' ')[2]} `));
        // The first command's grandchild was in its process group: the restart's SIGTERM reached it too.
        expect(alive(Number(sleeper))).toBe(false);
        expect(started.output().stderr).toContain('cplane-reader: core/ci-token changed (value version 2); restarting python3.');
        // The Python watcher saw each version once, in order.
        expect(
          watcher
            .output()
            .stdout.split('\n')
            .filter(Boolean)
            .map((line) => line.split(' ')[1]),
        ).toEqual(['1', '2']);
      } finally {
        proxy.setLie(undefined);
        watcher.child.kill('SIGTERM');
        started.child.kill('SIGTERM');
        await Promise.all([watcher.exited, started.exited]);
      }
      for (const text of [watcher.output().stderr, started.output().stderr]) expect(text).not.toContain(credential);
    },
  );
});

it(
  'a command that ignores SIGTERM is killed once --grace has passed, and started again only after it has exited',
  { timeout: 180_000 },
  async () => {
    const started = running(
      bin(),
      [
        'run',
        '--watch',
        '--interval',
        '100ms',
        '--grace',
        '1s',
        '--env',
        'STRIPE_KEY=payments/stripe-key',
        '--',
        'python3',
        'stubborn-app.py',
      ],
      { cwd: app, env: appEnv() },
    );
    try {
      const first = await started.next(/^start /);
      const [, firstHash, firstPid] = first.split(' ');
      expect(firstHash).toBe(sha256(values.STRIPE_KEY));
      const rotated = 'sk_live_python_reader_rotated_7781';
      const applied = await w.run(['apply', w.dir, '--auto-approve'], { ...values, STRIPE_KEY: rotated });
      expect(applied.code, applied.stderr).toBe(0);
      await started.next(new RegExp(`^start ${sha256(rotated)} `));
      // The new command started only once the old one, which ignored SIGTERM, had been killed and had exited.
      expect(alive(Number(firstPid))).toBe(false);
      expect(started.output().stderr).toContain('cplane-reader: payments/stripe-key changed (value version 2); restarting python3.');
    } finally {
      // The command ignores SIGTERM, which cplane-reader would forward: both are ended with SIGKILL.
      for (const line of started
        .output()
        .stdout.split('\n')
        .filter((l) => l.startsWith('start ')))
        if (alive(Number(line.split(' ')[2]))) process.kill(Number(line.split(' ')[2]), 'SIGKILL');
      started.child.kill('SIGKILL');
      await started.exited;
      if (started.output().stderr.includes('Error')) console.log(started.output());
    }
  },
);
