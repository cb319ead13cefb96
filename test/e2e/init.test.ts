// `cplane init` on a clean home, as a new user runs it: it creates the state key (mode 0600) where docs/state.md
// says, then finds it; it names the environment variables the configuration reads and which are unset (never a
// value); an unreachable PostgreSQL state is a clear error. The first apply that creates a key says so, once.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.js';
import { runCli, smallConfig, world } from './helpers.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'cplane-init-'));
  mkdirSync(join(home, 'infra'));
  writeFileSync(
    join(home, 'infra', 'main.yaml'),
    `version: 1
account: \${var.account}
variables:
  account: { description: The account }
  env: { default: dev }
credentials:
  openai: { provider: openai, label: OpenAI, secret: { env: OPENAI_API_KEY } }
  mistral: { provider: mistral, label: Mistral, secret: { env: MISTRAL_API_KEY } }
`,
  );
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const cleanEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'config'),
  NO_COLOR: '1',
  ...extra,
});
const keyFile = () => join(home, 'config', 'cplane', 'state.key');

test('on a clean home init creates the key file with mode 0600 and says to keep it; the second run reports it found', async () => {
  const first = await runCli(['init', 'infra', '--account', 'acct-1'], cleanEnv({ OPENAI_API_KEY: 'sk-never-printed' }), home);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(exitCodes.ok);
  expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
  expect(first.stdout).toContain(`State key:   created ${keyFile()} (mode 0600). Keep it and back it up`);
  expect(first.stdout).toContain(
    `State:       ${join(home, 'infra', '.cplane', 'acct-1', 'state.json')}: no state yet; the first apply creates it (${join(home, 'infra')} is writable)`,
  );
  // The unset ones are named; a set one is marked set, and its value is never printed.
  expect(first.stdout).toMatch(/^ {2}MISTRAL_API_KEY +UNSET +secret source$/m);
  expect(first.stdout).toMatch(/^ {2}OPENAI_API_KEY +set +secret source$/m);
  expect(first.stdout).toMatch(/^ {2}CPLANE_VAR_account +UNSET +variable account/m);
  expect(first.stdout).toMatch(/^ {2}CPLANE_TOKEN +UNSET +API token$/m);
  expect(first.stdout).not.toMatch(/CPLANE_VAR_env/);
  expect(first.stdout).not.toContain('sk-never-printed');

  const second = await runCli(['init', 'infra', '--account', 'acct-1', '--json'], cleanEnv({ CPLANE_VAR_account: 'acct-1' }), home);
  expect(second.code).toBe(0);
  const report = JSON.parse(second.stdout) as { ready: boolean; stateKey: unknown; unset: string[] };
  expect(report.ready).toBe(true);
  expect(report.stateKey).toEqual({ source: 'keyfile', path: keyFile(), created: false });
  expect(report.unset).toEqual(['CPLANE_BASE_URL', 'CPLANE_TOKEN', 'MISTRAL_API_KEY', 'OPENAI_API_KEY']);
});

test('a key in CPLANE_STATE_KEY is reported by its source, and no key file is made', async () => {
  const run = await runCli(
    ['init', 'infra', '--account', 'acct-1'],
    cleanEnv({ CPLANE_STATE_KEY: Buffer.alloc(32, 7).toString('base64') }),
    home,
  );
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('State key:   from the environment variable CPLANE_STATE_KEY\n');
  expect(statSync(keyFile(), { throwIfNoEntry: false })).toBeUndefined();
});

test('a variable given with --var-file (or --var) is not listed as needed', async () => {
  writeFileSync(join(home, 'prod.yaml'), 'account: acct-1\n');
  const run = await runCli(['init', 'infra', '--var-file', 'prod.yaml', '--json'], cleanEnv(), home);
  expect(run.code).toBe(0);
  const report = JSON.parse(run.stdout) as { environment: { name: string }[]; state: { location: string } };
  expect(report.environment.map((e) => e.name)).not.toContain('CPLANE_VAR_account');
  // The account came from the var file, through the configuration's `account: ${var.account}`.
  expect(report.state.location).toBe(join(home, 'infra', '.cplane', 'acct-1', 'state.json'));
});

test('an unreachable PostgreSQL state: a clear error naming the masked URL, exit 1', async () => {
  // A port that was free a moment ago: nothing listens on it.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const run = await runCli(
    ['init', 'infra', '--account', 'acct-1', '--state', `postgres://cplane:hunter2-pw@127.0.0.1:${port}/infra`],
    cleanEnv(),
    home,
  );
  expect(run.code).toBe(exitCodes.error);
  expect(run.stdout).toContain(
    `State:       Cannot use the PostgreSQL state at postgres://cplane:***@127.0.0.1:${port}/infra: connect ECONNREFUSED 127.0.0.1:${port}.`,
  );
  expect(run.stdout).toContain('Check the host, port, database, user and password');
  expect(run.stderr).toContain('Not ready: fix the problems above and run `cplane init` again.');
  expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2-pw');
});

test('the first apply that creates the key says so in one line on stderr; the next one does not', async () => {
  const w = await world();
  try {
    w.config(smallConfig());
    const noKey = { CPLANE_STATE_KEY: '' };
    const first = await w.cli(['apply', w.dir, '--auto-approve'], noKey);
    expect(first.code).toBe(0);
    const created = join(w.temp, 'config', 'cplane', 'state.key');
    const notes = first.stderr.split('\n').filter((line) => line.includes('state key'));
    expect(notes).toEqual([
      `Note: created the state key ${created} (mode 0600): keep it and back it up with your other secrets; without it this state's sealed values cannot be opened.`,
    ]);
    const second = await w.cli(['apply', w.dir, '--auto-approve'], noKey);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('created the state key');
  } finally {
    await w.close();
  }
});

test('in an empty folder init writes a starter cplane.yaml, which validates and plans against the account as it is', async () => {
  const w = await world();
  try {
    const first = await w.cli(['init', w.dir]);
    expect(first.code).toBe(0);
    const starter = join(w.dir, 'cplane.yaml');
    expect(first.stdout.split('\n')[0]).toBe(
      `Wrote ${starter}: a starter configuration (one project, one record with a generated value). Edit it, then run \`cplane plan\`.`,
    );
    const written = readFileSync(starter, 'utf8');
    expect((await w.cli(['validate', w.dir])).code).toBe(0);
    const plan = await w.cli(['plan', w.dir, '--detailed-exitcode']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(exitCodes.changes);
    expect(plan.stdout).toContain('# project.app will be created');
    expect(plan.stdout).toContain('# record.app/session-secret will be created');
    // A folder with a configuration keeps it: nothing is written again.
    writeFileSync(starter, `${written}# mine\n`);
    const again = await w.cli(['init', w.dir, '--json']);
    expect(JSON.parse(again.stdout)).not.toHaveProperty('wrote');
    expect(readFileSync(starter, 'utf8')).toBe(`${written}# mine\n`);
  } finally {
    await w.close();
  }
});

test('init puts the schema line for the editor at the top of each configuration file, once', async () => {
  const first = await runCli(['init', 'infra', '--account', 'acct-1'], cleanEnv(), home);
  expect(first.stdout).toContain('Editor:      added the schema line (# yaml-language-server: $schema=...) to main.yaml');
  const text = readFileSync(join(home, 'infra', 'main.yaml'), 'utf8');
  const [line] = text.split('\n');
  expect(line).toMatch(/^# yaml-language-server: \$schema=(\.\.\/)+.*schema\/config\.schema\.json$/);
  // The path leads to the schema this cplane ships.
  expect(existsSync(join(home, 'infra', line!.split('$schema=')[1]!))).toBe(true);
  const second = await runCli(['init', 'infra', '--account', 'acct-1', '--json'], cleanEnv(), home);
  expect((JSON.parse(second.stdout) as { schemaLineAdded: string[] }).schemaLineAdded).toEqual([]);
  expect(readFileSync(join(home, 'infra', 'main.yaml'), 'utf8')).toBe(text);
});

test('a configuration with a reference error: init says the error at its file:line:col, as validate does (it said "No account given")', async () => {
  const account = '0a000000-0000-4000-8000-000000000001';
  writeFileSync(
    join(home, 'infra', 'main.yaml'),
    `version: 1\naccount: ${account}\ngateways:\n  main: { project: nope, defaultModel: gpt-4o-mini, credentials: [openai] }\n`,
  );
  const done = await runCli(['init', 'infra'], cleanEnv(), home);
  expect(done.code).toBe(1);
  expect(done.stdout + done.stderr).not.toContain('No account given');
  expect(done.stderr).toContain('infra/main.yaml:4:20: error: Unknown project "nope" in gateway "main"');
});
