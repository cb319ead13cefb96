import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { deriveSubkey, keyCheckOf, sealSecret } from '../../src/crypto/index.js';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, StateError } from '../../src/state/index.js';
import type { StateError as StateErrorType } from '../../src/state/index.js';
import { makeSandbox, newKey, resource } from './helpers.js';
import type { Sandbox } from './helpers.js';

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as StateErrorType | undefined;
  expect(error).toBeInstanceOf(StateError);
  return error!.code;
}

describe('openState and update', () => {
  it('creates the state on first locked open, with a .gitignore and a key file outside the repository', async () => {
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env: box.env, command: 'cplane apply', lock: true });
    expect(store.path).toBe(join(box.configDir, '.cplane', 'acc_1', 'state.json'));
    expect(readFileSync(join(box.configDir, '.cplane', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const keyFile = join(box.configHome, 'cplane', 'state.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(store.data).toMatchObject({ version: 2, account: 'acc_1', serial: 0, resources: {}, journal: [] });
    expect(existsSync(store.path)).toBe(true);
    await store.close();
    expect(existsSync(`${store.path}.lock`)).toBe(false);
  });

  it('stores every update with a new serial, folds them into state.json on close keeping the previous snapshot as backup, and reloads it', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    await store.update((draft) => {
      draft.resources['project.web'] = resource('project', 'prj_1', { inputs: { name: 'web' } });
    });
    await store.update((draft) => {
      draft.resources['project.web']!.inputs.description = 'hello';
    });
    expect(store.data.serial).toBe(2);
    await store.close();
    expect((JSON.parse(readFileSync(store.path, 'utf8')) as { serial: number }).serial).toBe(2);
    // The snapshot before the fold: the empty state written when it was created.
    const backup = JSON.parse(readFileSync(`${store.path}.backup`, 'utf8')) as { serial: number };
    expect(backup.serial).toBe(0);
    const again = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: false });
    expect(again.data.serial).toBe(2);
    expect(again.data.resources['project.web']?.inputs).toEqual({ name: 'web', description: 'hello' });
  });

  it('stores concurrent updates in call order, none lost (the ones made together share one group)', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.update((draft) => {
          draft.resources[`project.p${i}`] = resource('project', `prj_${i}`);
        }),
      ),
    );
    expect(store.data.serial).toBe(1);
    expect(Object.keys(store.data.resources)).toHaveLength(20);
    await store.close();
  });

  it('leaves the state unchanged when a mutation throws, and later updates still run', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    const failing = store.update((draft) => {
      draft.resources['project.a'] = resource('project', 'prj_a');
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    await store.update((draft) => {
      draft.resources['project.b'] = resource('project', 'prj_b');
    });
    expect(Object.keys(store.data.resources)).toEqual(['project.b']);
    expect(store.data.serial).toBe(1);
    await store.close();
  });

  it('refuses an update that breaks the schema, and updates of a store opened without the lock', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    await expect(
      store.update((draft) => {
        draft.resources['project.bad'] = { ...resource('project', 'prj'), fingerprints: { secret: 'not-hex' } };
      }),
    ).rejects.toThrow(/breaks its schema: \/resources\/project.bad\/fingerprints\/secret/);
    await store.close();
    const readOnly = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: false });
    expect(await codeOf(readOnly.update(() => undefined))).toBe('STATE_READ_ONLY');
  });

  it('refuses to save over a file someone else replaced since it was read', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const notes: string[] = [];
    const store = await openState({
      configDir: box.configDir,
      account: 'acc_1',
      env,
      command: 'test',
      lock: true,
      onNotice: (note) => notes.push(note),
    });
    await store.update((draft) => {
      draft.resources['project.a'] = resource('project', 'prj_a');
    });
    // A hand edit of state.json while cplane runs.
    writeFileSync(store.path, readFileSync(store.path, 'utf8').replace('"serial": 0', '"serial": 7'));
    const before = readFileSync(store.path);
    const change = store.update((draft) => {
      draft.resources['project.b'] = resource('project', 'prj_b');
    });
    expect(await codeOf(change)).toBe('STATE_CHANGED');
    expect(readFileSync(store.path).equals(before)).toBe(true);
    // The close does not fold over it either; it says why, and the change stays in the log.
    await store.close();
    expect(readFileSync(store.path).equals(before)).toBe(true);
    expect(notes).toEqual([
      expect.stringMatching(
        /^The change log of .* was not folded into it: The state file .* was changed by someone else since cplane read it/,
      ),
    ]);
  });

  it('refuses a state of account A when opened for account B', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const a = await openState({ configDir: box.configDir, account: 'acc_A', env, command: 'test', lock: true });
    await a.close();
    const error = await openState({
      configDir: box.configDir,
      account: 'acc_B',
      statePath: a.path,
      env,
      command: 'test',
      lock: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateErrorType).code).toBe('STATE_ACCOUNT_MISMATCH');
    expect((error as StateErrorType).message).toBe(`The state ${a.path} belongs to account acc_A, not acc_B.`);
    // The refused open released its lock.
    expect(existsSync(`${a.path}.lock`)).toBe(false);
  });

  it('asks for an account when neither an account nor a state path is given', async () => {
    expect(await codeOf(openState({ configDir: box.configDir, env: box.env, command: 'test', lock: false }))).toBe('STATE_ACCOUNT_MISSING');
    expect(await codeOf(openState({ configDir: box.configDir, account: '../x', env: box.env, command: 'test', lock: false }))).toBe(
      'STATE_ACCOUNT_INVALID',
    );
  });

  it('reports a missing state when it must exist', async () => {
    const error = (await openState({
      configDir: box.configDir,
      account: 'acc_1',
      env: box.env,
      command: 'test',
      lock: false,
      mustExist: true,
    }).catch((e: unknown) => e)) as StateErrorType;
    expect(error.code).toBe('STATE_NOT_FOUND');
    expect(error.hint).toContain('--account or --state');
  });

  it('refuses a key file inside the configuration folder', async () => {
    const env = { ...box.env, XDG_CONFIG_HOME: join(box.configDir, 'conf') };
    expect(await codeOf(openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true }))).toBe(
      'STATE_KEY_IN_REPO',
    );
  });
});

describe('fingerprints and sealed values', () => {
  it('fingerprints are stable across opens, and differ by address, field and key', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const first = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    const fp = first.crypto.fingerprint('credential.openai', 'secret', 'sk-live-123');
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    await first.close();
    const second = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: false });
    expect(second.crypto.fingerprint('credential.openai', 'secret', 'sk-live-123')).toBe(fp);
    expect(second.crypto.fingerprint('credential.other', 'secret', 'sk-live-123')).not.toBe(fp);
    expect(second.crypto.fingerprint('credential.openai', 'label', 'sk-live-123')).not.toBe(fp);
    const otherKey = await openState({
      configDir: box.configDir,
      account: 'acc_2',
      env: { ...box.env, CPLANE_STATE_KEY: newKey() },
      command: 'test',
      lock: false,
    });
    expect(otherKey.crypto.fingerprint('credential.openai', 'secret', 'sk-live-123')).not.toBe(fp);
  });

  it('a sealed value opens only for its own address, and bodies only as bodies', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    const sealed = store.crypto.seal('gateway_token.prod/ci', 'gwt_plaintext');
    expect(store.crypto.open('gateway_token.prod/ci', sealed)).toBe('gwt_plaintext');
    const moved = (() => {
      try {
        return store.crypto.open('gateway_token.prod/other', sealed);
      } catch (e) {
        return e as StateErrorType;
      }
    })();
    expect((moved as StateErrorType).code).toBe('STATE_SEALED_VALUE');
    const body = store.crypto.sealBody('credential.openai', '{"secret":"sk"}');
    expect(store.crypto.openBody('credential.openai', body)).toBe('{"secret":"sk"}');
    expect(() => store.crypto.open('credential.openai', body)).toThrow(/does not open/);
    await store.close();
  });
});

describe('sealed values are bound to account, lineage and address', () => {
  it('a sealed token copied from another state made with the same key does not open', async () => {
    const env = { ...box.env, CPLANE_STATE_KEY: newKey() };
    const a = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    const sealed = a.crypto.seal('gateway_token.prod/ci', 'gwt_plaintext');
    expect(a.crypto.open('gateway_token.prod/ci', sealed)).toBe('gwt_plaintext');
    await a.close();
    // Same key, same address, another state (another lineage).
    const b = await openState({
      configDir: box.configDir,
      account: 'acc_1',
      statePath: join(box.root, 'other', 'state.json'),
      env,
      command: 'test',
      lock: true,
    });
    const error = (() => {
      try {
        return b.crypto.open('gateway_token.prod/ci', sealed);
      } catch (e) {
        return e;
      }
    })() as StateErrorType;
    expect(error.code).toBe('STATE_SEALED_VALUE');
    expect(error.message).toBe(
      'A sealed value of gateway_token.prod/ci does not open: it was sealed for another address or another state, or altered.',
    );
    await b.close();
  });

  it('a format-1 state (values bound to the address only) is migrated: opened, re-sealed and written as format 2', async () => {
    const key = newKey();
    const env = { ...box.env, CPLANE_STATE_KEY: key };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    await store.close();
    const doc = JSON.parse(readFileSync(store.path, 'utf8')) as Record<string, unknown>;
    const sealKey = deriveSubkey(Buffer.from(key, 'base64'), 'seal');
    const legacy = sealSecret(sealKey, 'gwt_old_plaintext', 'gateway_token.prod/ci');
    // A format-1 state predates entry MACs: its header has only the key check.
    const v1 = {
      ...doc,
      header: { keyCheck: keyCheckOf(Buffer.from(key, 'base64'), false) },
      version: 1,
      resources: { 'gateway_token.prod/ci': { ...resource('gateway_token', 'tok_1'), sealed: { plaintext: legacy } } },
      journal: [],
    };
    writeFileSync(store.path, JSON.stringify(v1));
    rmSync(`${store.path}.log`);

    // A reader opens the old values as they are and writes nothing.
    const reader = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: false });
    expect(reader.crypto.open('gateway_token.prod/ci', reader.data.resources['gateway_token.prod/ci']!.sealed!.plaintext!)).toBe(
      'gwt_old_plaintext',
    );
    expect((JSON.parse(readFileSync(store.path, 'utf8')) as { version: number }).version).toBe(1);

    const writer = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    await writer.close();
    const migrated = JSON.parse(readFileSync(store.path, 'utf8')) as {
      version: number;
      resources: Record<string, { sealed: { plaintext: { data: string } } }>;
    };
    expect(migrated.version).toBe(2);
    expect(migrated).not.toHaveProperty('resealFrom');
    expect(migrated.resources['gateway_token.prod/ci']!.sealed.plaintext.data).not.toBe(legacy.data);
    const after = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: false });
    expect(after.crypto.open('gateway_token.prod/ci', after.data.resources['gateway_token.prod/ci']!.sealed!.plaintext!)).toBe(
      'gwt_old_plaintext',
    );
    // The old binding no longer opens anything in a format-2 state.
    expect(() => after.crypto.open('gateway_token.prod/ci', legacy)).toThrow(/does not open/);
    // Its writer gave every entry a MAC.
    expect(after.data.resources['gateway_token.prod/ci']!.mac).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a state from before entry MACs with pending writes is refused, naming them: anyone could have added them', async () => {
    const key = newKey();
    const env = { ...box.env, CPLANE_STATE_KEY: key };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    await store.close();
    const doc = JSON.parse(readFileSync(store.path, 'utf8')) as Record<string, unknown>;
    const legacy = {
      ...doc,
      header: { keyCheck: keyCheckOf(Buffer.from(key, 'base64'), false) },
      journal: [
        {
          id: 'e1',
          address: 'record.payments/stripe-key',
          stepId: 's',
          operation: 'deleteGateway',
          pathParams: { id: 'gw_x' },
          idempotencyKey: 'k',
          body: null,
          createdAt: new Date().toISOString(),
        },
      ],
    };
    writeFileSync(store.path, JSON.stringify(legacy));
    rmSync(`${store.path}.log`);
    const refused = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StateError);
    expect((refused as StateError).code).toBe('STATE_ENTRY_FORGED');
    expect((refused as StateError).message).toContain('deleteGateway of record.payments/stripe-key');
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual(legacy);
  });

  it('an authenticated state stripped of its MACs (to pass a forged entry off as an old one) is refused', async () => {
    const key = newKey();
    const env = { ...box.env, CPLANE_STATE_KEY: key };
    const store = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true });
    await store.close();
    const doc = JSON.parse(readFileSync(store.path, 'utf8')) as Record<string, unknown>;
    const stripped = {
      ...doc,
      header: { keyCheck: (doc.header as { keyCheck: string }).keyCheck },
      resources: { 'gateway_token.prod/ci': resource('gateway_token', 'tok_not_ours') },
      journal: [],
    };
    writeFileSync(store.path, JSON.stringify(stripped));
    rmSync(`${store.path}.log`);
    const refused = await openState({ configDir: box.configDir, account: 'acc_1', env, command: 'test', lock: true }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StateError);
    expect((refused as StateError).code).toBe('STATE_ENTRY_FORGED');
    expect((refused as StateError).message).toContain("someone removed the entries' MACs");
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual(stripped);
  });
});
