// `cplane api` against an emulator on 127.0.0.1: the list, the generated help, what is refused before anything is
// sent (counted at the emulator), the error envelope, idempotency keys, retries as the spec allows, paging and
// bodies from a file or stdin. The built CLI runs as a subprocess where the process is the subject (the face as a
// user starts it, a body piped to its stdin); the rest runs the CLI's own entry in-process (test/helpers/in-process-cli.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, operationNames, operations } from '../../src/api/index.js';
import { fixtures, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli, type CliResult } from '../e2e/helpers.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { cliEnv } from './api-cli-suite.js';
import { acme } from './operation-calls.js';
import { builtCli } from '../helpers/built-cli.js';

const saOperations = operationNames.filter((name) => operations[name].identity === 'SA').length;

const seededProject = fixtures.projects[0]!.id;
const seededGateway = fixtures.gateways[0]!.id;
const openai = fixtures.providers[0]!.id;
const missing = '99999999-9999-4999-8999-999999999999';
const CLI_BUDGET_MS = 60_000;

let emulator: RunningEmulator;
let home: string;

beforeAll(async () => {
  emulator = await startEmulator();
  home = mkdtempSync(join(tmpdir(), 'cplane-api-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(home, { recursive: true, force: true });
});
beforeEach(() => {
  emulator.setFaults(undefined);
  emulator.resetStats();
});

const cli = (args: string[], token = fixtures.tokens.admin) => runInProcess(args, cliEnv(emulator.url, home, token), home);
/** The built CLI as a subprocess, as a user starts it. */
const spawned = (args: string[], token = fixtures.tokens.admin): Promise<CliResult> =>
  runCli(args, cliEnv(emulator.url, home, token), home);

/** The CLI with text on its stdin (for --body -). */
function cliWithInput(args: string[], input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli(), ...args], {
      cwd: home,
      env: cliEnv(emulator.url, home, fixtures.tokens.admin),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('cplane api without an operation', () => {
  it('lists every operation with method, path, identity and summary', { timeout: CLI_BUDGET_MS }, async () => {
    const run = await spawned(['api']);
    expect(run.code).toBe(0);
    const rows = run.stdout.split('\n').filter((line) => /^\S+\s+(GET|POST|PATCH|DELETE)\s/.test(line));
    expect(rows).toHaveLength(operationNames.length);
    expect(rows.map((r) => r.split(/\s+/)[0]).sort()).toEqual([...operationNames].sort());
    expect(run.stdout).toMatch(/^createProject\s+POST\s+\/projects\s+H\s+Create a project in the account\.$/m);
    expect(run.stdout).toMatch(/^getGateway\s+GET\s+\/gateways\/\{id\}\s+SA\s+Read one gateway/m);
    expect(emulator.stats().requests).toBe(0);
  });

  it('marks the operations a Service Account token may call', { timeout: CLI_BUDGET_MS }, async () => {
    const run = await cli(['api', '--json'], fixtures.tokens.serviceAccount);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as { name: string; identity: string; callable: boolean }[];
    expect(rows).toHaveLength(operationNames.length);
    expect(rows.filter((r) => r.callable).map((r) => r.name)).toEqual(rows.filter((r) => r.identity === 'SA').map((r) => r.name));
    expect(rows.filter((r) => r.callable)).toHaveLength(saOperations);
    const text = await cli(['api'], fixtures.tokens.serviceAccount);
    expect(text.stdout.split('\n').filter((line) => /^\* \w+ +(GET|POST|PATCH|DELETE) /.test(line))).toHaveLength(saOperations);
    expect(text.stdout).toContain(`* = callable with the Service Account token in use (${saOperations} of ${operationNames.length}).`);
  });
});

describe('cplane api <operation> --help', () => {
  it("without an operation, shows the command's own usage and flags, as `cplane help api` does", { timeout: CLI_BUDGET_MS }, async () => {
    const run = await cli(['api', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: cplane api \[OPERATION \[--param NAME=VALUE \.\.\.\]/);
    expect(run.stdout).toContain('List the API operations, or call one directly');
    expect(run.stdout).toContain('OPERATION --help    the parameters, body and result of one operation');
    expect((await cli(['help', 'api'])).stdout).toBe(run.stdout);
  });

  it('shows the parameters and body fields from the table, and marks write-only fields', { timeout: CLI_BUDGET_MS }, async () => {
    const run = await cli(['api', 'createCredential', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: cplane api createCredential --body JSON|@FILE|- [--idempotency-key KEY]');
    expect(run.stdout).toContain('POST /v1/provider-credentials');
    expect(run.stdout).toMatch(/^ {2}providerId +uuid, required$/m);
    expect(run.stdout).toMatch(/^ {2}secret +string \(1\.\.8192 characters\), required, write-only \(never printed\)$/m);
    const paged = await cli(['api', 'listGatewayTokens', '--help']);
    expect(paged.stdout).toMatch(/^ {2}id +uuid, required$/m);
    expect(paged.stdout).toMatch(/^ {2}limit +integer 1\.\.200$/m);
    expect(paged.stdout).toContain('identity: SA (a Service Account token may call it too)');
  });
});

describe('refused before anything is sent', () => {
  it(
    'refuses a human-only operation with a Service Account token, with no request reaching the emulator',
    { timeout: CLI_BUDGET_MS },
    async () => {
      const run = await cli(
        ['api', 'createProject', '--body', JSON.stringify({ accountId: acme, name: 'x', description: '' })],
        fixtures.tokens.serviceAccount,
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'Error: createProject (POST /projects) is a human-only operation and the token is a Service Account token (sk-svc-sa-); no request was sent. ' +
          'Use a personal access token (sk-svc-pat-) for this command.\n',
      );
      expect(emulator.stats().requests).toBe(0);
    },
  );

  it('rejects a body that does not match the table, naming each problem', { timeout: CLI_BUDGET_MS }, async () => {
    const run = await cli([
      'api',
      'createGateway',
      '--body',
      JSON.stringify({ projectId: 'shop', name: '', slug: 'x', defaultProviderId: openai, credentialIds: [], color: 'red' }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      [
        'Error: createGateway was not sent:',
        '  - body: missing required member "defaultModel"',
        '  - body: unknown member "color"',
        '  - body/projectId: must match format "uuid"',
        '  - body/name: must NOT have fewer than 1 characters',
        '  - body/credentialIds: must NOT have fewer than 1 items',
        'Run `cplane api createGateway --help` for its parameters and body.',
        '',
      ].join('\n'),
    );
    expect(emulator.stats().requests).toBe(0);
  });

  it('suggests the operation or parameter meant, and checks path parameters', { timeout: CLI_BUDGET_MS }, async () => {
    const typo = await cli(['api', 'listProject']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe(
      'Error: Unknown operation "listProject"; did you mean "listProjects" or "getProject"?\nRun `cplane api` to list all operations.\n',
    );
    const param = await cli(['api', 'listProjects', '--param', 'includeArchive=true']);
    expect(param.stderr).toContain(
      'Error: listProjects was not sent: unknown parameter "includeArchive"; did you mean "includeArchived"? (listProjects takes accountId, includeArchived, limit, offset)\n',
    );
    const path = await cli(['api', 'getGateway', '--param', 'id=payments']);
    expect(path.stderr).toContain('Error: getGateway was not sent: path parameter "id" must be a uuid\n');
    const json = await cli(['api', 'createProject', '--body', '{"name": sk-not-json-secret']);
    // JSON.parse would quote the text around the mistake; the CLI never does, in case it holds a secret.
    expect(json.stderr).toBe(`Error: --body: the --body text is not valid JSON.\nExample: --body '{"name": "payments"}'\n`);
    const unclosed = await cli(['api', 'createProject', '--body', '{"a":1']);
    expect(unclosed.stderr).toContain('Error: --body: the --body text is not valid JSON (at character 6).\n');
    expect(emulator.stats().requests).toBe(0);
  });
});

describe('answers and writes', () => {
  it('prints the error envelope (status, code, reason, requestId) on stderr and exits 1', { timeout: CLI_BUDGET_MS }, async () => {
    const run = await cli(['api', 'getProject', '--param', `id=${missing}`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const envelope = JSON.parse(run.stderr) as Record<string, unknown>;
    expect(envelope).toEqual({ status: 404, code: 'not_found', reason: 'project_not_found', requestId: expect.stringMatching(/^req_/) });
  });

  it('sends the Idempotency-Key given, so a repeated write returns the first result', { timeout: CLI_BUDGET_MS }, async () => {
    const key = '5f1c2d3e-0000-4000-8000-000000000042';
    const args = [
      'api',
      'createProject',
      '--idempotency-key',
      key,
      '--body',
      JSON.stringify({ accountId: acme, name: 'once', description: '' }),
    ];
    const first = await cli(args);
    const second = await cli(args);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(first.stderr).toBe('');
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
    expect(emulator.stats().writes).toBe(1);
  });

  it('retries a 503 with backoff up to the client limit, and never a 400', { timeout: CLI_BUDGET_MS }, async () => {
    emulator.setFaults('503=1,seed=3');
    const failing = await cli(['api', 'listProviders']);
    expect(failing.code).toBe(1);
    expect(emulator.stats().requests).toBe(6);
    expect(failing.stderr.match(/^Retrying listProviders in \d+ ms \(attempt \d failed: service_unavailable\)\.$/gm)).toHaveLength(5);
    expect(JSON.parse(failing.stderr.slice(failing.stderr.indexOf('{')))).toMatchObject({ status: 503, reason: 'service_unavailable' });

    emulator.setFaults(undefined);
    emulator.resetStats();
    const invalid = await cli(['api', 'listRecordAlerts', '--param', 'scopeType=galaxy']);
    expect(JSON.parse(invalid.stderr)).toMatchObject({ status: 400, reason: 'invalid_scope' });
    expect(emulator.stats().requests).toBe(1);
  });

  it('--all-pages reads every page of a list', { timeout: CLI_BUDGET_MS }, async () => {
    const client = createClient({ baseUrl: emulator.url, token: fixtures.tokens.admin, accountId: acme });
    const all = await client.listAll('listGatewayKeyAccess', { path: { id: seededGateway } });
    await client.close();
    expect(all.length).toBeGreaterThan(50);
    emulator.resetStats();
    const run = await cli(['api', 'listGatewayKeyAccess', '--param', `id=${seededGateway}`, '--param', 'limit=50', '--all-pages']);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { rows: unknown[]; total: number };
    expect(printed.rows).toEqual(all);
    expect(printed.total).toBe(all.length);
    expect(emulator.stats().requests).toBe(Math.ceil(all.length / 50) + (all.length % 50 === 0 ? 1 : 0));
    const notPaged = await cli(['api', 'getProject', '--param', `id=${seededProject}`, '--all-pages']);
    expect(notPaged.stderr).toContain('Error: getProject was not sent: getProject is not a paginated list, so it has no pages to read\n');
  });

  it('takes the body from a file or from stdin', { timeout: CLI_BUDGET_MS }, async () => {
    const file = join(home, 'body.json');
    writeFileSync(file, JSON.stringify({ accountId: acme, name: 'from-file', description: '' }));
    const fromFile = await cli(['api', 'createProject', '--body', `@${file}`]);
    expect(fromFile.code).toBe(0);
    const fromStdin = await cliWithInput(
      ['api', 'updateProject', '--param', `id=${JSON.parse(fromFile.stdout).project_id as string}`, '--body', '-'],
      JSON.stringify({ name: 'from-stdin', description: 'piped', isActive: true }),
    );
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ name: 'from-stdin', description: 'piped' });
  });
});
