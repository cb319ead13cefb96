import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, StateError } from '../../src/state/index.js';
import type { OpenStateOptions, StateError as StateErrorType } from '../../src/state/index.js';
import { makeSandbox, newKey, resource } from './helpers.js';
import type { Sandbox } from './helpers.js';

let box: Sandbox;
let statePath: string;
let options: OpenStateOptions;

beforeEach(async () => {
  box = makeSandbox();
  options = {
    configDir: box.configDir,
    account: 'acc_1',
    env: { ...box.env, CPLANE_STATE_KEY: newKey() },
    command: 'cplane apply',
    lock: true,
  };
  const store = await openState(options);
  await store.update((draft) => {
    draft.resources['credential.openai'] = resource('credential', 'cred_1', {
      fingerprints: { secret: store.crypto.fingerprint('credential.openai', 'secret', 'sk-1') },
    });
  });
  await store.close();
  statePath = store.path;
});
afterEach(() => box.cleanup());

function snapshot(): Record<string, string> {
  const folder = dirname(statePath);
  return Object.fromEntries(readdirSync(folder).map((name) => [name, readFileSync(join(folder, name), 'base64')]));
}

/** Opens the state (locked, as apply would) expecting a StateError, and checks that no file changed. */
async function expectRefusal(open: OpenStateOptions = options): Promise<StateErrorType> {
  const before = snapshot();
  const error = await openState(open).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StateError);
  expect(snapshot()).toEqual(before);
  return error as StateErrorType;
}

const restoreHint = 'The file was left untouched. Restore it from state.json.backup next to it, or from your own copy.';

describe('a state that cannot be used is reported and never overwritten', () => {
  it('wrong key', async () => {
    const error = await expectRefusal({ ...options, env: { ...box.env, CPLANE_STATE_KEY: newKey() } });
    expect(error.code).toBe('STATE_KEY_WRONG');
    expect(error.message).toBe(
      `The state key from CPLANE_STATE_KEY is not the key the state ${statePath} was written with (it expects a 32-byte key (CPLANE_STATE_KEY or a key file)). Nothing was opened or written.`,
    );
    expect(error.hint).toBe('Use the key or passphrase this state was created with.');
  });

  it('wrong passphrase for a passphrase state', async () => {
    rmSync(statePath);
    const withPassphrase = { ...options, env: { ...box.env, CPLANE_PASSPHRASE: 'right' } };
    await (await openState(withPassphrase)).close();
    const error = await expectRefusal({ ...options, env: { ...box.env, CPLANE_PASSPHRASE: 'wrong' } });
    expect(error.code).toBe('STATE_KEY_WRONG');
    expect(error.message).toContain('The state key from CPLANE_PASSPHRASE is not the key');
    expect(error.message).toContain('(it expects a key derived from a passphrase (CPLANE_PASSPHRASE))');
    const reopened = await openState({ ...withPassphrase, lock: false });
    expect(reopened.data.serial).toBe(0);
  });

  it('missing key: the state was written with the key file, which is gone', async () => {
    rmSync(statePath);
    await (await openState({ ...options, env: box.env })).close();
    const keyFile = join(box.configHome, 'cplane', 'state.key');
    rmSync(keyFile);
    const error = await expectRefusal({ ...options, env: box.env });
    expect(error.code).toBe('STATE_KEY_MISSING');
    expect(error.message).toBe(
      `This state was written with a key, and none is available: CPLANE_STATE_KEY and CPLANE_PASSPHRASE are unset and there is no key file at ${keyFile}.`,
    );
    expect(error.hint).toBe(
      `Set CPLANE_STATE_KEY to the key used when the state was created, or restore the key file ${keyFile} (and XDG_CONFIG_HOME, if it was set).`,
    );
    expect(readdirSync(join(box.configHome, 'cplane'))).toEqual([]);
  });

  it('corrupt JSON', async () => {
    writeFileSync(statePath, '{"version": 1, "header": oops}');
    const error = await expectRefusal();
    expect(error.code).toBe('STATE_CORRUPT');
    expect(error.message).toMatch(new RegExp(`^The state file ${statePath} is not valid JSON: Unexpected token .*\\.$`));
    expect(error.hint).toBe(restoreHint);
  });

  it('truncated file, at many cut points', async () => {
    const whole = readFileSync(statePath, 'utf8');
    for (const cut of [0, 1, 10, Math.floor(whole.length / 2), whole.length - 3]) {
      writeFileSync(statePath, whole.slice(0, cut));
      const error = await expectRefusal();
      expect(error.code, `cut at ${cut}`).toBe('STATE_TRUNCATED');
      expect(error.message.startsWith(`The state file ${statePath} is truncated (${cut} bytes; `)).toBe(true);
      expect(error.hint).toBe(restoreHint);
    }
  });

  it('future version', async () => {
    const doc = JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, unknown>;
    writeFileSync(statePath, JSON.stringify({ ...doc, version: 3 }));
    const error = await expectRefusal();
    expect(error.code).toBe('STATE_VERSION_FUTURE');
    expect(error.message).toBe(
      `The state file ${statePath} has format version 3, written by a newer cplane; this cplane reads up to version 2.`,
    );
    expect(error.hint).toBe('Upgrade cplane. The file was left untouched.');
  });

  it('schema failure', async () => {
    const { lineage: _lineage, ...doc } = JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, unknown>;
    writeFileSync(statePath, JSON.stringify(doc));
    const error = await expectRefusal();
    expect(error.code).toBe('STATE_SCHEMA');
    expect(error.message).toBe(
      `The state file ${statePath} does not match schema/state.schema.json: /: must have required property 'lineage'.`,
    );
  });

  it('the backup of the previous version is a complete, loadable state', async () => {
    const backup = JSON.parse(readFileSync(`${statePath}.backup`, 'utf8')) as { serial: number };
    expect(backup.serial).toBe(0);
    writeFileSync(statePath, readFileSync(`${statePath}.backup`));
    const store = await openState({ ...options, lock: false });
    expect(store.data.resources).toEqual({});
  });
});
