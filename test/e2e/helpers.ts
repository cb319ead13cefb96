// The end-to-end arrangement: an emulator on a random port, a configuration folder in a temp dir, and the real CLI as a subprocess.
import { deriveSubkey } from '../../src/crypto/state-key.js';
import { writerKeyOf } from '@cplane/sdk/internal/writer-key';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type PlanLimits } from '../../src/emulator/index.js';
import { fixtures } from '../../src/emulator/fixtures.js';
import { builtCli } from '../helpers/built-cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

export const account = fixtures.accounts[1]!.id;
/** Acme Production: the account of the fixture Service Accounts (`ci-deployer`, inactive `legacy-bot`), users and groups. */
export const acme = fixtures.accounts[0]!.id;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface World {
  /** The private folder of this world: HOME of every run, holding `dir` (and key files a test writes). */
  temp: string;
  dir: string;
  statePath: string;
  env: NodeJS.ProcessEnv;
  emulator: Awaited<ReturnType<typeof startEmulator>>;
  client: ApiClient;
  /** Writes main.yaml of the configuration folder. */
  config(yaml: string): void;
  /** The CLI as the configuration's operator (admin token, state key); what it printed is kept in `outputs`. */
  cli(args: string[], extraEnv?: NodeJS.ProcessEnv, onStdout?: (soFar: string, child: ChildProcess) => void): Promise<CliResult>;
  /**
   * The CLI's own entry in this process (test/helpers/in-process-cli.ts), as the operator, in the same folder with
   * the same environment as `cli`; what it printed is kept in `outputs`. For arranging a story and for
   * diagnostics, where the process is not the subject; what only a process does (signals, exit, the bundle) needs `cli`.
   */
  run(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  /** The CLI as a reader: `token` instead of the admin's, and no state key (`cplane read` prints a value: not kept). */
  cliAs(token: string, args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  /** cplane's writer public key for this world's state key (base64): what `cliAs` readers trust (CPLANE_WRITER_KEY). */
  writerKey: string;
  /** stdout and stderr of every run of `cli`, for leak scans. */
  outputs: string[];
  /** For a leak scan, last: stops the emulator and returns what it saved (with `dataFile`) and every file of the state folder. */
  stored(): Promise<string[]>;
  close(): Promise<void>;
}

/** `account`: the account the CLI and the client work in (default: Acme Staging, which has no Service Accounts). */
/** `dataFile`: the emulator saves its data in the world's folder, so a leak scan reads what the service stored. */
/** `accounts`: extra accounts (`extraAccount(n)`, Ada their admin, Dana a reader, a group `team`, a Service Account `deployer`); `planLimits`: the emulator's objects per account. */
export async function world(
  options: {
    faults?: string;
    latencyMs?: number;
    clockOffset?: string;
    account?: string;
    dataFile?: boolean;
    accounts?: number;
    planLimits?: PlanLimits;
  } = {},
): Promise<World> {
  const temp = mkdtempSync(join(tmpdir(), 'cplane-e2e-'));
  const dataFile = options.dataFile ? join(temp, 'emulator-data.json') : undefined;
  const emulator = await startEmulator({
    latencyMs: options.latencyMs ?? 0,
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.clockOffset ? { clockOffset: options.clockOffset } : {}),
    ...(dataFile ? { dataFile } : {}),
    ...(options.accounts ? { accounts: options.accounts } : {}),
    ...(options.planLimits ? { planLimits: options.planLimits } : {}),
  });
  let running = true;
  const dir = join(temp, 'infra');
  mkdirSync(dir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: temp,
    XDG_CONFIG_HOME: join(temp, 'config'),
    CPLANE_BASE_URL: emulator.url,
    CPLANE_TOKEN: fixtures.tokens.admin,
    CPLANE_ACCOUNT: options.account ?? account,
    CPLANE_STATE_KEY: Buffer.alloc(32, 9).toString('base64'),
    OPENAI_API_KEY: 'sk-e2e-openai-secret',
    NO_COLOR: '1',
  };
  const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: options.account ?? account });
  const outputs: string[] = [];
  const kept = async (run: Promise<CliResult>) => {
    const done = await run;
    outputs.push(done.stdout, done.stderr);
    return done;
  };
  const { CPLANE_STATE_KEY: _stateKey, ...readerEnv } = env;
  const writerKey = writerKeyOf(deriveSubkey(Buffer.from(env.CPLANE_STATE_KEY!, 'base64'), 'writer key')).publicKey;
  return {
    temp,
    dir,
    statePath: join(dir, '.cplane', options.account ?? account, 'state.json'),
    env,
    emulator,
    client,
    outputs,
    config: (yaml) => writeFileSync(join(dir, 'main.yaml'), yaml),
    cli: (args, extraEnv = {}, onStdout) => kept(runCli(args, { ...env, ...extraEnv }, temp, onStdout)),
    run: (args, extraEnv = {}) => kept(runInProcess(args, { ...env, ...extraEnv }, temp).then((done) => ({ ...done, signal: null }))),
    // A reader pins cplane's writer key (derived from the state key), as `cplane writer-key` prints it.
    cliAs: (token, args, extraEnv = {}) =>
      runCli(args, { ...readerEnv, CPLANE_TOKEN: token, CPLANE_WRITER_KEY: writerKey, ...extraEnv }, temp),
    writerKey,
    async stored() {
      running = false;
      await emulator.close();
      const files = (root: string): string[] =>
        readdirSync(root).flatMap((name) => (statSync(join(root, name)).isDirectory() ? files(join(root, name)) : [join(root, name)]));
      return [...(dataFile ? [dataFile] : []), ...files(join(dir, '.cplane'))].map((path) => readFileSync(path, 'utf8'));
    },
    async close() {
      await client.close();
      if (running) await emulator.close();
      rmSync(temp, { recursive: true, force: true });
    },
  };
}

export { coreAndOpenai, teamGateways } from '../helpers/config-yaml.js';

/** Runs the CLI; `onStdout` sees the output so far as it arrives and may signal the process. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  onStdout?: (soFar: string, child: ChildProcess) => void,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli(), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A small configuration: one project, one credential, one gateway with one token. */
export function smallConfig(
  options: { description?: string; scopes?: string[]; preventDestroy?: boolean; withProject2?: boolean } = {},
): string {
  return `version: 1
projects:
  shop:
    name: shop
    description: ${options.description ?? 'Shop services'}
    lifecycle: { preventDestroy: ${options.preventDestroy ?? false} }
${options.withProject2 ? '  extra:\n    name: extra\n    description: Extra\n' : ''}credentials:
  openai:
    provider: openai
    label: openai-shop
    secret: { env: OPENAI_API_KEY }
gateways:
  main:
    project: shop
    name: Shop gateway
    slug: shop-main
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci:
        scopes: [${(options.scopes ?? ['run']).join(', ')}]
`;
}

/** What the API holds, by natural key, to check there are no duplicates. */
export async function liveInventory(
  client: ApiClient,
): Promise<{ projects: string[]; credentials: string[]; gateways: string[]; tokens: string[] }> {
  const projects = (await client.listAll('listProjects', {})).map((p) => p.name).sort();
  const credentials = (await client.listAll('listCredentials', {})).map((c) => c.label).sort();
  const gateways = await client.listAll('listGateways', {});
  const tokens: string[] = [];
  for (const g of gateways) {
    for (const t of await client.listAll('listGatewayTokens', { path: { id: g.gateway_id } }))
      if (!t.revoked_at) tokens.push(`${g.slug}/${t.name}`);
  }
  return {
    projects,
    credentials,
    gateways: gateways
      .filter((g) => g.status !== 'disabled')
      .map((g) => g.slug)
      .sort(),
    tokens: tokens.sort(),
  };
}

/** How many API answers a clean apply of `smallConfig()` takes, counted on a world of its own. */
export async function answersOfCleanApply(): Promise<number> {
  const counting = await world();
  try {
    counting.config(smallConfig());
    const before = counting.emulator.stats().requests;
    const run = await counting.cli(['apply', counting.dir, '--auto-approve']);
    if (run.code !== 0) throw new Error(`the clean apply failed: ${run.stderr}`);
    return counting.emulator.stats().requests - before;
  } finally {
    await counting.close();
  }
}

export interface HostileProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A hostile API between cplane and the emulator on 127.0.0.1: `answer` may answer a request itself (and return
 * true), with the request's body in hand, or hold it (return a promise: it is forwarded once that settles, a
 * network as slow as the test needs, decided by events rather than time); every other request is forwarded to
 * the emulator as it came.
 */
export async function hostileProxy(
  emulatorUrl: string,
  answer: (req: IncomingMessage, body: Buffer, res: ServerResponse) => boolean | Promise<void>,
): Promise<HostileProxy> {
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const answered = answer(req, body, res);
      if (answered === true) return;
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>;
      void Promise.resolve(answered).then(async () => {
        const forwarded = await fetch(`${emulatorUrl}${req.url}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) });
        res.writeHead(forwarded.status, {
          'content-type': forwarded.headers.get('content-type') ?? 'application/json',
          'x-request-id': forwarded.headers.get('x-request-id') ?? '',
        });
        res.end(Buffer.from(await forwarded.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/** A project, an OpenAI credential and gateway `main` using it: the stem of several stories' configurations, which add the gateway's own keys (4-space indent) and other blocks after it. */
export const shopGateway = `projects:
  shop: { description: Shop }
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
gateways:
  main:
    project: shop
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
`;
