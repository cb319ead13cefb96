// The CI pipeline of docs/ci.md, with its state in PostgreSQL and every step run through the real CLI: a PR job
// plans in checkout X with a var file and saves the plan; the merge job applies that file in checkout Y at another
// path with no variables; a later job (checkout Z) finds nothing to do and reveals the token Y created: one story, one
// test. Then the failures a shared state must survive: an apply killed with SIGKILL, two applies at once, a save
// racing another writer's save; and `state history` lists every version. Each test has its own emulator, checkouts
// and PostgreSQL schema; the ones after the story apply it in-process first (pipelineApplied).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, StateError, type OpenStateOptions, type ResourceState } from '../../../src/state/index.js';
import { withDatabase } from '../../helpers/postgres.js';
import { authenticResource } from '../../state/helpers.js';
import { account, liveInventory, runCli, world, type CliResult, type World } from '../helpers.js';
import { builtCli } from '../../helpers/built-cli.js';
import { runInProcess } from '../../helpers/in-process-cli.js';

const database = withDatabase();
/** Each test's own schema of the file's database. */
let schema: string;
let schemas = 0;

/** One gateway of the configuration, with a `ci` token and any more tokens given as YAML lines. */
function gateway(key: string, project: string, name: string, slug: string, moreTokens = ''): string {
  return `  ${key}:
    project: ${project}
    name: ${name}
    slug: ${slug}-\${var.env}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      ci:
        scopes: [run]
${moreTokens}`;
}

/** The team's configuration: the account and the environment come from a var file. */
function config(options: { extra?: boolean; description?: string } = {}): string {
  return `version: 1
account: \${var.account}
variables:
  account: { type: string }
  env: { type: string }
projects:
  shop:
    name: shop-\${var.env}
    description: ${options.description ?? 'Shop services in ${var.env}'}
${options.extra ? '  extra:\n    name: extra-${var.env}\n    description: Extra services\n' : ''}credentials:
  openai:
    provider: openai
    label: openai-\${var.env}
    secret: { env: OPENAI_API_KEY }
gateways:
${gateway('main', 'shop', 'Shop gateway', 'shop', options.extra ? '      deploy:\n        scopes: [run, read_logs]\n' : '')}${options.extra ? gateway('side', 'extra', 'Side gateway', 'side') : ''}`;
}

let w: World;
let temp: string;
let stateUrl: string;
/** A CI job's environment: API address, token and secrets, the shared state; no account, no variables. */
let jobEnv: NodeJS.ProcessEnv;
let seeded: Awaited<ReturnType<typeof liveInventory>>;
const checkout = (name: 'x' | 'y' | 'z') => join(temp, name === 'y' ? 'elsewhere' : '', name);

function cliIn(name: 'x' | 'y' | 'z', args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(args, { ...jobEnv, ...extraEnv }, checkout(name));
}

/** A command on Z's configuration with the production var file, e.g. inZ(['plan']). */
const inZ = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => cliIn('z', [...args, 'infra', '--var-file', 'envs/prod.yaml'], extraEnv);

/** Requests that change something in the API, as the emulator counted them. */
function writeRequests(): number {
  return Object.entries(w.emulator.stats().byOperation)
    .filter(([name]) => /^(create|update|delete|add|attach|rotate)/.test(name))
    .reduce((sum, [, n]) => sum + n, 0);
}

function storeOptions(lock: boolean): OpenStateOptions {
  return { configDir: join(checkout('z'), 'infra'), account, statePath: stateUrl, env: jobEnv, command: 'cplane pipeline-test', lock };
}

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(stateUrl);
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A stand-in for a slow network between the CLI and the API: requests wait until `open()`. */
async function startGate(target: string): Promise<{ url: string; open: () => void; close: () => Promise<void> }> {
  let opened = false;
  const held: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const upstream = request(new URL(req.url!, target), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (error) => res.destroy(error));
      req.pipe(upstream);
    };
    if (opened) forward();
    else held.push(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    open() {
      opened = true;
      for (const forward of held.splice(0)) forward();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts the CLI in Z and returns its pid with the result to come. */
function startInZ(args: string[], env: NodeJS.ProcessEnv): { pid: number; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [builtCli(), ...args], { cwd: checkout('z'), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { pid: child.pid!, done };
}

beforeEach(async () => {
  w = await world();
  seeded = await liveInventory(w.client);
  schema = `pipeline_${++schemas}`;
  const url = new URL(database().url);
  url.searchParams.set('schema', schema);
  stateUrl = url.toString();
  jobEnv = { ...w.env, CPLANE_ACCOUNT: undefined, CPLANE_STATE: stateUrl };
  temp = mkdtempSync(join(tmpdir(), 'cplane-pipeline-'));
  const x = checkout('x');
  mkdirSync(join(x, 'infra'), { recursive: true });
  mkdirSync(join(x, 'envs'));
  writeFileSync(join(x, 'infra', 'main.yaml'), config());
  writeFileSync(join(x, 'envs', 'prod.yaml'), `env: prod\naccount: ${account}\n`);
  cpSync(x, checkout('y'), { recursive: true });
  cpSync(x, checkout('z'), { recursive: true });
});
afterEach(async () => {
  await w?.close();
  if (temp) rmSync(temp, { recursive: true, force: true });
});

/** The story's apply, in-process in Z (the state then holds what Y's apply wrote); returns the token, revealed. */
async function pipelineApplied(): Promise<string> {
  const inProcessZ = (args: string[]) => runInProcess([...args, 'infra', '--var-file', 'envs/prod.yaml'], jobEnv, checkout('z'));
  const applied = await inProcessZ(['apply', '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  const revealed = await inProcessZ(['output', 'gateway_token.main/ci', '--reveal']);
  expect(revealed.code, revealed.stderr).toBe(0);
  return revealed.stdout.trim();
}

/**
 * Another writer that ignores the lock (a hand-run script that holds the state key) saves `gateway.main` with
 * another `updatedAt`: serial + 1 and one row of history (`state-fixer`). Returns the resource it saved.
 */
async function otherWriterSaves(
  before: Parameters<typeof authenticResource>[1] & { resources: Record<string, ResourceState> },
  updatedAt: string,
): Promise<ResourceState> {
  const otherGateway = authenticResource(jobEnv.CPLANE_STATE_KEY!, before, 'gateway.main', {
    ...before.resources['gateway.main']!,
    updatedAt,
  });
  await withClient(async (client) => {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: string; serial: string }>(
      `UPDATE ${schema}.states SET serial = serial + 1 WHERE account = $1 RETURNING id, serial`,
      [account],
    );
    await client.query(`UPDATE ${schema}.resources SET data = $2::jsonb WHERE state_id = $1 AND address = 'gateway.main'`, [
      rows[0]!.id,
      JSON.stringify(otherGateway),
    ]);
    await client.query(
      `INSERT INTO ${schema}.versions (state_id, serial, who, host, command, changes, bytes) VALUES ($1, $2, 'ops', 'laptop', 'state-fixer', 1, 0)`,
      [rows[0]!.id, rows[0]!.serial],
    );
    await client.query('COMMIT');
  });
  return otherGateway;
}

describe('the CI pipeline with its state in PostgreSQL', () => {
  it(
    'checkout X plans with --var-file and saves the plan with --out; checkout Y, at another path with no variables and no CPLANE_ACCOUNT, applies that plan file; checkout Z plans "No changes." and reveals the token created in Y',
    { timeout: 240_000 },
    async () => {
      // Checkout X: the plan, saved.
      const planned = await cliIn('x', ['plan', 'infra', '--var-file', 'envs/prod.yaml', '--out', 'prod.plan.json']);
      expect(planned.stderr).toContain('Saved the plan to');
      expect(planned.code).toBe(0);
      expect(planned.stdout).toMatch(/Plan: 4 to add, 0 to change, 0 to replace, 0 to remove\./);
      const saved = readFileSync(join(checkout('x'), 'prod.plan.json'), 'utf8');
      const withoutPassword = new URL(stateUrl);
      withoutPassword.password = '';
      expect((JSON.parse(saved) as { origin: { state: unknown } }).origin.state).toEqual({ url: withoutPassword.toString() });
      expect(saved).not.toContain(new URL(stateUrl).password);
      expect(saved).not.toContain(temp);
      // Planning writes nothing: neither the API nor the state.
      expect(writeRequests()).toBe(0);
      const history = await inZ(['state', 'history']);
      expect(history.stdout).toContain('has no versions yet');

      // Checkout Y: the plan file applied.
      cpSync(join(checkout('x'), 'prod.plan.json'), join(checkout('y'), 'prod.plan.json'));
      const applied = await cliIn('y', ['apply', 'prod.plan.json']);
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      expect(applied.stdout).toMatch(/Apply complete: 4 done, 0 failed, 0 skipped/);
      expect(await liveInventory(w.client)).toEqual({
        projects: [...seeded.projects, 'shop-prod'].sort(),
        credentials: [...seeded.credentials, 'openai-prod'].sort(),
        gateways: [...seeded.gateways, 'shop-prod'].sort(),
        tokens: [...seeded.tokens, 'shop-prod/ci'].sort(),
      });
      const revealed = await cliIn('y', ['output', 'gateway_token.main/ci', 'infra', '--var-file', 'envs/prod.yaml', '--reveal']);
      expect(revealed.code, revealed.stderr).toBe(0);
      const revealedInY = revealed.stdout.trim();
      expect(revealedInY).toMatch(/^gwt_\w{20,}$/);

      // Checkout Z: nothing left to do, and the token Y created.
      const plan = await inZ(['plan']);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain('No changes.');
      const revealedInZ = await inZ(['output', 'gateway_token.main/ci', '--reveal']);
      expect(revealedInZ.code, revealedInZ.stderr).toBe(0);
      const token = revealedInZ.stdout.trim();
      expect(token).toBe(revealedInY);
      const gateway = (await w.client.listAll('listGateways', {})).find((g) => g.slug === 'shop-prod')!;
      const [held] = (await w.client.listAll('listGatewayTokens', { path: { id: gateway.gateway_id } })).filter((t) => t.name === 'ci');
      expect(held!.token_prefix).toHaveLength(8);
      expect(token.startsWith(held!.token_prefix)).toBe(true);
    },
  );

  it(
    'an apply killed with SIGKILL mid-run: the next one proceeds without force-unlock and converges with no duplicates',
    { timeout: 180_000 },
    async () => {
      await pipelineApplied();
      // The merged change adds a project, a gateway with its token and a second token: four writes, two in a chain.
      writeFileSync(join(checkout('z'), 'infra', 'main.yaml'), config({ extra: true }));
      const beforePlan = w.emulator.stats().requests;
      const plan = await inZ(['plan']);
      expect(plan.stdout).toMatch(/Plan: 4 to add, 0 to change, 0 to replace, 0 to remove\./);
      const reads = w.emulator.stats().requests - beforePlan;

      const writesBefore = writeRequests();
      const killed = await inZ(['apply', '--auto-approve'], { CPLANE_TEST_KILL_AFTER_REQUESTS: String(reads + 2) });
      expect(killed.signal).toBe('SIGKILL');
      const writesByKilled = writeRequests() - writesBefore;
      expect(writesByKilled).toBeGreaterThan(0);

      const rerun = await inZ(['apply', '--auto-approve']);
      expect(rerun.stderr).toBe('');
      expect(rerun.code).toBe(0);
      expect(writeRequests() - writesBefore - writesByKilled).toBeGreaterThan(0);
      expect(await liveInventory(w.client)).toEqual({
        projects: [...seeded.projects, 'extra-prod', 'shop-prod'].sort(),
        credentials: [...seeded.credentials, 'openai-prod'].sort(),
        gateways: [...seeded.gateways, 'shop-prod', 'side-prod'].sort(),
        tokens: [...seeded.tokens, 'shop-prod/ci', 'shop-prod/deploy', 'side-prod/ci'].sort(),
      });
      expect((await inZ(['plan'])).stdout).toContain('No changes.');
    },
  );

  it('two applies started at once: exactly one proceeds, the other fails naming the holder', { timeout: 180_000 }, async () => {
    // The merged change applied (as after the killed apply's re-run), then one more change: a description.
    writeFileSync(join(checkout('z'), 'infra', 'main.yaml'), config({ extra: true }));
    await pipelineApplied();
    writeFileSync(join(checkout('z'), 'infra', 'main.yaml'), config({ extra: true, description: 'Shop services, now shared' }));
    // The API answers only once one of the two has given up, so neither can finish before the other has tried.
    const gate = await startGate(w.emulator.url);
    try {
      const env = { ...jobEnv, CPLANE_BASE_URL: gate.url };
      const args = ['apply', 'infra', '--var-file', 'envs/prod.yaml', '--auto-approve'];
      const runs = [startInZ(args, env), startInZ(args, env)];
      const first = await Promise.race(runs.map(async (run) => ({ run, result: await run.done })));
      gate.open();
      const winner = runs.find((run) => run !== first.run)!;
      const won = await winner.done;

      expect(first.result.code).toBe(1);
      expect(first.result.stderr).toContain(
        `Error: The state is locked by pid ${winner.pid} on ${userInfo().username}@${hostname()}, running \`cplane apply\` since `,
      );
      expect(first.result.stderr).toMatch(/cplane force-unlock [0-9a-f-]{36} --force/);
      expect(first.result.stdout).toBe('');
      expect(won.stderr).toBe('');
      expect(won.code).toBe(0);
      expect(won.stdout).toMatch(/Apply complete: 1 done, 0 failed, 0 skipped/);
    } finally {
      await gate.close();
    }
    const project = (await w.client.listAll('listProjects', {})).filter((p) => p.name === 'shop-prod');
    expect(project.map((p) => p.description)).toEqual(['Shop services, now shared']);
  });

  it("a save racing another writer's save is refused by the compare-and-swap, and nothing is lost", { timeout: 90_000 }, async () => {
    const revealedBefore = await pipelineApplied();
    const store = await openState(storeOptions(true));
    const before = structuredClone(store.data);
    expect(Object.keys(before.resources)).toContain('gateway_token.main/ci');
    // Another writer that ignores the lock saves first.
    const otherUpdatedAt = '2030-01-01T00:00:00.000Z';
    const otherGateway = await otherWriterSaves(before, otherUpdatedAt);
    const ours = '2031-01-01T00:00:00.000Z';
    const refused = await store
      .update((draft) => void (draft.resources['project.shop'] = { ...draft.resources['project.shop']!, updatedAt: ours }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StateError);
    expect((refused as StateError).code).toBe('STATE_CHANGED');
    expect((refused as StateError).message).toContain('nothing was written');
    await store.close();

    const reader = await openState(storeOptions(false));
    expect(reader.data.serial).toBe(before.serial + 1);
    const expected: Record<string, ResourceState> = { ...before.resources, 'gateway.main': otherGateway };
    expect(reader.data.resources).toEqual(expected);
    expect(reader.data.journal).toEqual([]);
    await reader.close();

    // Run again, as the error says: it starts from the latest state and its save goes through.
    const again = await openState(storeOptions(true));
    await again.update((draft) => void (draft.resources['project.shop'] = { ...draft.resources['project.shop']!, updatedAt: ours }));
    await again.close();
    const after = await openState(storeOptions(false));
    expect(after.data.serial).toBe(before.serial + 2);
    expect(after.data.resources['project.shop']!.updatedAt).toBe(ours);
    expect(after.data.resources['gateway.main']!.updatedAt).toBe(otherUpdatedAt);
    await after.close();
    const revealed = await inZ(['output', 'gateway_token.main/ci', '--reveal']);
    expect(revealed.stdout.trim()).toBe(revealedBefore);
    expect((await inZ(['plan'])).stdout).toContain('No changes.');
  });

  it('state history lists every version, serials increasing, with the commands that saved them', { timeout: 90_000 }, async () => {
    // Versions saved by an apply, by another writer, and by a store opened here.
    await pipelineApplied();
    const store = await openState(storeOptions(true));
    await otherWriterSaves(structuredClone(store.data), '2030-01-01T00:00:00.000Z');
    await store.close();
    const again = await openState(storeOptions(true));
    await again.update(
      (draft) => void (draft.resources['project.shop'] = { ...draft.resources['project.shop']!, updatedAt: '2031-01-01T00:00:00.000Z' }),
    );
    await again.close();
    const reader = await openState(storeOptions(false));
    const latest = reader.data.serial;
    await reader.close();
    const json = await inZ(['state', 'history', '--limit', '1000', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const { versions } = JSON.parse(json.stdout) as { versions: { serial: number; command: string }[] };
    const serials = versions.map((v) => v.serial).reverse();
    expect(serials).toEqual(Array.from({ length: latest + 1 }, (_, i) => i));
    const commands = new Set(versions.map((v) => v.command));
    expect(commands).toContain('cplane apply');
    expect(commands).toContain('state-fixer');
    expect(commands).toContain('cplane pipeline-test');

    const text = await inZ(['state', 'history', '--limit', '1000']);
    expect(text.stdout).toMatch(new RegExp(`^ *${latest} .*\`cplane pipeline-test\``, 'm'));
    expect(text.stdout).toMatch(/^ *\d+ .*`cplane apply`/m);
  });
});
