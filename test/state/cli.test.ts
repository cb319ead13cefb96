import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileBackend, openState, readStateFile } from '../../src/state/index.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { makeSandbox, newKey, resource, runCplane } from './helpers.js';
import type { Sandbox } from './helpers.js';

const TOKEN = 'gwt_ab12_plaintext_secret';
const PROVIDER_KEY = 'sk-live-123';

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let statePath: string;
let providerFingerprint: string;

// What the state commands print is the subject, not the process: they run the CLI's entry in-process. The lock
// stories (a holder's pid, a note printed by the process) run the real binary.
const cplane = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runInProcess(args, { ...env, ...extraEnv }, box.configDir);
const cplaneProcess = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCplane(args, box.configDir, { ...env, ...extraEnv });

beforeEach(async () => {
  box = makeSandbox();
  mkdirSync(box.configDir, { recursive: true });
  env = { ...box.env, CPLANE_STATE_KEY: newKey() };
  const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'seed', lock: true });
  providerFingerprint = store.crypto.fingerprint('credential.openai', 'secret', PROVIDER_KEY);
  await store.update((draft) => {
    draft.resources['project.web'] = resource('project', 'prj_1', { inputs: { name: 'web', active: true } });
    draft.resources['credential.openai'] = resource('credential', 'cred_1', {
      inputs: { label: 'main' },
      fingerprints: { secret: providerFingerprint },
    });
    draft.resources['gateway_token.prod/ci'] = resource('gateway_token', 'tok_1', {
      parents: { gatewayId: 'gw_1' },
      inputs: { name: 'ci' },
      outputs: { tokenPrefix: 'gwt_ab12' },
      sealed: { plaintext: store.crypto.seal('gateway_token.prod/ci', TOKEN) },
    });
    draft.resources['gateway_token.prod/imported'] = resource('gateway_token', 'tok_2', {
      parents: { gatewayId: 'gw_1' },
      inputs: { name: 'imported' },
    });
  });
  await store.close();
  statePath = store.path;
});
afterEach(() => box.cleanup());

describe('cplane state list / show', () => {
  it('lists the addresses sorted, with kind and id', async () => {
    const run = await cplane(['state', 'list', '--account', 'acc_1']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'credential.openai            credential     cred_1',
        'gateway_token.prod/ci        gateway_token  tok_1',
        'gateway_token.prod/imported  gateway_token  tok_2',
        'project.web                  project        prj_1',
        '',
      ].join('\n'),
    });
  });

  it('takes the account from CPLANE_ACCOUNT, or the file from --state, or the one state in the folder', async () => {
    expect((await cplane(['state', 'list'], { CPLANE_ACCOUNT: 'acc_1' })).stdout).toContain('project.web');
    expect((await cplane(['state', 'list', '--state', statePath])).stdout).toContain('project.web');
    expect((await cplane(['state', 'list'])).stdout).toContain('project.web');

    const second = await openState({ configDir: box.configDir, account: 'acc_2', env, command: 'seed', lock: true });
    await second.close();
    const two = await cplane(['state', 'list']);
    expect(two).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error: ${box.configDir}/.cplane holds the states of 2 accounts: acc_1, acc_2.\nChoose one with --account ID or CPLANE_ACCOUNT.\n`,
    });
  });

  it('says no account was given when the folder holds no state', async () => {
    const empty = await cplane(['state', 'list', box.root]);
    expect(empty).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: No account given: cplane keeps one state per account.\nPass --account ID, set CPLANE_ACCOUNT, or give the state file with --state PATH.\n',
    });
  });

  it('refuses the state of another account', async () => {
    const run = await cplane(['state', 'list', '--account', 'acc_2', '--state', statePath]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: The state ${statePath} belongs to account acc_1, not acc_2.\nEach account has its own state: check --account / CPLANE_ACCOUNT, or the --state path.\n`,
    );
  });

  it('shows one address without any secret', async () => {
    const credential = await cplane(['state', 'show', 'credential.openai', '--account', 'acc_1']);
    expect(credential.code).toBe(0);
    expect(credential.stdout).toBe(
      [
        'address:  credential.openai',
        'kind:     credential',
        'id:       cred_1',
        'created:  2025-01-02T03:04:05.000Z',
        'updated:  2025-01-02T03:04:05.000Z',
        'inputs:',
        '  label: "main"',
        'write-only values:',
        '  secret: (sensitive, fingerprinted)',
        '',
      ].join('\n'),
    );
    expect(credential.stdout).not.toContain(providerFingerprint);
    const token = await cplane(['state', 'show', 'gateway_token.prod/ci', '--account', 'acc_1']);
    expect(token.stdout).toContain('parents:  gatewayId=gw_1\n');
    expect(token.stdout).toContain(
      'sealed secrets:\n  plaintext: (sensitive, sealed; `cplane output gateway_token.prod/ci --reveal` shows it)\n',
    );
    expect(token.stdout).not.toContain(TOKEN);
    const unknown = await cplane(['state', 'show', 'project.nope', '--account', 'acc_1']);
    expect(unknown).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error: project.nope is not in the state ${statePath}.\nRun \`cplane state list\` to see the addresses it holds.\n`,
    });
  });
});

describe('commands that print nothing secret do not need the state key', () => {
  it('state list, state show and output without --reveal work with no key at all; --reveal asks for it', async () => {
    const noKey = { CPLANE_STATE_KEY: '' };
    const list = await cplane(['state', 'list', '--account', 'acc_1'], noKey);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('gateway_token.prod/ci');
    expect((await cplane(['state', 'show', 'project.web', '--account', 'acc_1'], noKey)).code).toBe(0);
    const output = await cplane(['output', '--account', 'acc_1'], noKey);
    expect(output).toMatchObject({ code: 0, stderr: '' });
    expect(output.stdout).toContain('gateway_token.prod/ci = (sensitive: use --reveal)');
    const reveal = await cplane(['output', 'gateway_token.prod/ci', '--reveal', '--account', 'acc_1'], noKey);
    expect(reveal.code).toBe(1);
    expect(reveal.stderr).toContain('This state was written with a key, and none is available');
  });
});

describe('cplane state show of an address that exists only in the journal', () => {
  it('shows its pending writes instead of saying it is unknown', async () => {
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'seed', lock: true });
    await store.update((draft) => {
      draft.journal.push({
        id: 'e1',
        address: 'project.new',
        stepId: 'project.new',
        operation: 'createProject',
        pathParams: {},
        idempotencyKey: 'key-123',
        body: { plain: '{"name":"new"}' },
        createdAt: '2025-01-02T03:04:05.000Z',
        kind: 'project',
      });
    });
    await store.close();
    const run = await cplane(['state', 'show', 'project.new', '--account', 'acc_1']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'address:  project.new',
        'recorded: not yet: the object may or may not exist; `cplane apply` resends these writes and records it',
        'pending writes:',
        '  createProject (Idempotency-Key key-123, since 2025-01-02T03:04:05.000Z)',
        '',
      ].join('\n'),
    });
    expect((await cplane(['state', 'show', 'project.other', '--account', 'acc_1'])).stderr).toContain('project.other is not in the state');
  });
});

describe('cplane output', () => {
  it('lists tokens as sensitive without --reveal', async () => {
    const run = await cplane(['output', '--account', 'acc_1']);
    expect(run.stdout).toBe(
      [
        'gateway_token.prod/ci = (sensitive: use --reveal)  [id tok_1, prefix gwt_ab12]',
        'gateway_token.prod/imported = (no plaintext kept: the API shows it only at creation)  [id tok_2]',
        '',
      ].join('\n'),
    );
    const json = await cplane(['output', '--json', '--account', 'acc_1']);
    expect(JSON.parse(json.stdout)).toEqual({
      'gateway_token.prod/ci': { id: 'tok_1', prefix: 'gwt_ab12', sensitive: true, expiresAt: null, expiry: null },
      'gateway_token.prod/imported': { id: 'tok_2', prefix: null, sensitive: true, expiresAt: null, expiry: null },
    });
  });

  it('prints the plaintext only with --reveal', async () => {
    expect(await cplane(['output', 'gateway_token.prod/ci', '--reveal', '--account', 'acc_1'])).toEqual({
      code: 0,
      stdout: `${TOKEN}\n`,
      stderr: '',
    });
    const json = await cplane(['output', 'gateway_token.prod/ci', '--reveal', '--json', '--account', 'acc_1']);
    expect(JSON.parse(json.stdout)).toEqual({
      'gateway_token.prod/ci': { id: 'tok_1', prefix: 'gwt_ab12', sensitive: true, expiresAt: null, expiry: null, value: TOKEN },
    });
    const imported = await cplane(['output', 'gateway_token.prod/imported', '--reveal', '--account', 'acc_1']);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toBe(
      'Error: The state keeps no plaintext for gateway_token.prod/imported: the API shows it only at creation.\nRotate the token to get a new plaintext.\n',
    );
    const missing = await cplane(['output', 'gateway_token.prod/nope', '--account', 'acc_1']);
    expect(missing.stderr).toBe(
      `Error: gateway_token.prod/nope is not a gateway token in the state ${statePath}.\nRun \`cplane output\` to list the tokens it holds.\n`,
    );
  });

  it('says which key is wrong instead of printing anything', async () => {
    const run = await cplane(['output', 'gateway_token.prod/ci', '--reveal', '--account', 'acc_1'], { CPLANE_STATE_KEY: newKey() });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Error: The state key from CPLANE_STATE_KEY is not the key the state');
  });
});

describe('cplane state rm / mv', () => {
  it('rm forgets an address and leaves the others', async () => {
    const run = await cplane(['state', 'rm', 'project.web', '--account', 'acc_1']);
    expect(run).toEqual({ code: 0, stderr: '', stdout: 'Removed project.web from the state. The remote project prj_1 was not touched.\n' });
    const after = await readStateFile(statePath);
    expect(Object.keys(after!.resources).sort()).toEqual(['credential.openai', 'gateway_token.prod/ci', 'gateway_token.prod/imported']);
    expect(after!.serial).toBe(2);
  });

  it('mv renames, keeping the sealed token and the fingerprints usable', async () => {
    const run = await cplane(['state', 'mv', 'gateway_token.prod/ci', 'gateway_token.prod/deploy', '--account', 'acc_1']);
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: 'Moved gateway_token.prod/ci to gateway_token.prod/deploy (remote gateway_token tok_1 unchanged).\n',
    });
    expect((await cplane(['output', 'gateway_token.prod/deploy', '--reveal', '--account', 'acc_1'])).stdout).toBe(`${TOKEN}\n`);
    await cplane(['state', 'mv', 'credential.openai', 'credential.primary', '--account', 'acc_1']);
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: false });
    expect(store.data.resources['credential.primary']!.fingerprints.secret).toBe(
      store.crypto.fingerprint('credential.primary', 'secret', PROVIDER_KEY),
    );
    expect(store.data.resources['credential.openai']).toBeUndefined();
  });

  it('mv refuses an existing target and a change of kind', async () => {
    const exists = await cplane(['state', 'mv', 'gateway_token.prod/ci', 'gateway_token.prod/imported', '--account', 'acc_1']);
    expect(exists.stderr).toBe(
      'Error: gateway_token.prod/imported is already in the state; nothing was moved.\nRemove it first with `cplane state rm gateway_token.prod/imported` if it is stale.\n',
    );
    const kind = await cplane(['state', 'mv', 'project.web', 'record.web', '--account', 'acc_1']);
    expect(kind.stderr).toBe(
      'Error: project.web is a project, so its new address must be project.NAME (got record.web).\nAn address can be renamed but never change kind.\n',
    );
    expect((await readStateFile(statePath))!.serial).toBe(1);
  });
});

describe('cplane force-unlock', () => {
  it('a stale lock of this host is taken over by the next writer, with a note naming the holder', async () => {
    const backend = new LocalFileBackend(statePath);
    // A pid that has surely exited: a finished child of ours.
    const deadPid = await new Promise<number>((resolve) => {
      const child = execFile(process.execPath, ['-e', '0'], () => resolve(child.pid!));
    });
    const info = {
      id: 'lock-1234',
      pid: deadPid,
      host: (await import('node:os')).hostname(),
      time: '2025-01-02T03:04:05.000Z',
      command: 'cplane apply',
    };
    await backend.lock(info);

    const run = await cplaneProcess(['state', 'rm', 'project.web', '--account', 'acc_1']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `Note: Took over the state lock of ${statePath}: its holder (pid ${deadPid} on ${info.host}, running \`cplane apply\` since 2025-01-02T03:04:05.000Z, lock id lock-1234) is no longer running.\n`,
    );
    const wrong = await cplaneProcess(['force-unlock', 'lock-9999', '--account', 'acc_1']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('is not locked');
  });

  it('force-unlock refuses a holder alive on this host without --force, and removes it with --force', async () => {
    const backend = new LocalFileBackend(statePath);
    const info = {
      id: 'lock-5678',
      pid: process.pid,
      host: (await import('node:os')).hostname(),
      time: '2025-01-02T03:04:05.000Z',
      command: 'cplane apply',
    };
    await backend.lock(info);
    const refused = await cplaneProcess(['force-unlock', 'lock-5678', '--account', 'acc_1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error: The lock lock-5678 is held by pid ${process.pid} on this host, which is still running`);
    expect(refused.stderr).toContain('cplane force-unlock lock-5678 --force');
    const forced = await cplaneProcess(['force-unlock', 'lock-5678', '--force', '--account', 'acc_1']);
    expect(forced).toEqual({
      code: 0,
      stderr: '',
      stdout: `Removed lock lock-5678 of ${statePath} (held by pid ${process.pid} on ${info.host}, \`cplane apply\`, since 2025-01-02T03:04:05.000Z).\n`,
    });
    expect((await cplaneProcess(['state', 'rm', 'project.web', '--account', 'acc_1'])).code).toBe(0);
  });
});
