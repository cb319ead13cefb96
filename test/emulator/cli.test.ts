// `cplane emulator` as a user runs it: the compiled binary as a subprocess (run `npm run build` first) where the
// process is the subject (a server that stops on SIGTERM); what it prints and its errors run in-process.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { extraAccount, fixtures, printableFixtures } from '../../src/emulator/index.js';
import { builtCli } from '../helpers/built-cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

describe('cplane emulator', () => {
  it('prints the base URL as its first line, serves the API there, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [builtCli(), 'emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout! });
    const output: string[] = [];
    const first = await new Promise<string>((resolve) =>
      lines.on('line', (line) => (output.push(line), output.length === 1 && resolve(line))),
    );
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${first}/v1/accounts`, { headers: { authorization: `Bearer ${fixtures.tokens.admin}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(2);
    // 'close', not 'exit': the lines after the first may still be in the pipe when the process exits.
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toEqual(
      expect.arrayContaining([
        `  export CPLANE_BASE_URL=${first}`,
        `  export CPLANE_TOKEN=${fixtures.tokens.admin}`,
        `  export CPLANE_ACCOUNT=${fixtures.accounts[0]!.id}`,
      ]),
    );
  });

  it('--print-fixtures prints the seeded data as JSON and exits', async () => {
    const run = await runInProcess(['emulator', '--print-fixtures'], process.env, process.cwd());
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as typeof fixtures;
    expect(printed.accounts).toEqual(fixtures.accounts);
    expect(Object.keys(printed.tokens)).toEqual(
      expect.arrayContaining(['admin', 'reader', 'serviceAccount', 'inactiveServiceAccount', 'expired']),
    );
    expect(printed).toHaveProperty('users');
    expect(printed).toHaveProperty('groups');
    expect(printed).toHaveProperty('roles');
    expect(printed).toHaveProperty('serviceAccounts');
    expect(printed.providers.map((p) => p.name)).toContain('anthropic');
  });

  it('--accounts N prints the fixtures of every account it serves: ids, groups and their keys, Service Accounts and their tokens, users and their accounts', async () => {
    const child = spawn(process.execPath, [builtCli(), 'emulator', '--port', '0', '--accounts', '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout! });
    const output: string[] = [];
    await new Promise<void>((resolve) => lines.on('line', (line) => (output.push(line), line === 'Press Ctrl-C to stop.' && resolve())));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const printed = printableFixtures(2);
    const tenant2 = extraAccount(2);
    const team2 = printed.groups.find((g) => g.id === tenant2.teamGroupId)!;
    const dana = printed.users.find((u) => u.name === 'Dana Developer')!;
    expect(output).toEqual(
      expect.arrayContaining([
        `  Tenant 2: ${tenant2.id}`,
        `    group team: id ${tenant2.teamGroupId}, publicKey ${team2.publicKey}`,
        `    Service Account deployer (active): keyId ${printed.serviceAccounts.find((s) => s.id === tenant2.serviceAccountId)!.keyId}, token ${tenant2.serviceAccountToken}`,
        `  Acme Production: ${fixtures.accounts[0]!.id}`,
        `    Service Account ci-deployer (active): keyId ${printed.serviceAccounts[0]!.keyId}, token ${fixtures.tokens.serviceAccount}`,
        `  Dana Developer: id ${dana.id}, publicKey ${dana.publicKey}; member of Acme Production, Tenant 1, Tenant 2`,
      ]),
    );
    // --print-fixtures --accounts N: the same accounts as JSON, keys included.
    const json = JSON.parse(
      (await runInProcess(['emulator', '--print-fixtures', '--accounts', '2'], process.env, process.cwd())).stdout,
    ) as typeof printed;
    expect(json.accounts.map((a) => a.name)).toEqual(['Acme Production', 'Acme Staging', 'Globex', 'Tenant 1', 'Tenant 2']);
    expect(json.groups.find((g) => g.id === tenant2.teamGroupId)).toMatchObject({
      name: 'team',
      publicKey: team2.publicKey,
      privateKey: team2.privateKey,
    });
    expect(json.tokens['tenant2ServiceAccount']).toBe(tenant2.serviceAccountToken);
  });

  it('explains a bad flag value', async () => {
    const port = await runInProcess(['emulator', '--port', 'eighty'], process.env, process.cwd());
    expect(port.code).toBe(1);
    expect(port.stderr).toBe('Error: --port must be a whole number from 0 to 65535, got "eighty".\n');
    const faults = await runInProcess(['emulator', '--faults', '502=0.1'], process.env, process.cwd());
    expect(faults.code).toBe(1);
    expect(faults.stderr).toBe(
      'Error: --faults: unknown fault "502": use 429, 500, 503, drop, latency or seed.\nExample: --faults "429=0.05,500=0.05,503=0.1,drop=0.1,seed=42"\n',
    );
  });
});
