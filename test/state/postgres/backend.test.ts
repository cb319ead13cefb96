/**
 * The PostgreSQL state backend on a real server: a write that races another
 * writer is refused with nothing lost, a killed holder frees the lock by itself, each
 * save leaves a version, and no table ever holds a secret or the password.
 */
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState, StateError } from '../../../src/state/index.js';
import { PostgresBackend } from '../../../src/state/postgres/index.js';
import { withDatabase } from '../../helpers/postgres.js';
import { exited, firstReport, startChild } from '../child.js';
import { authenticResource, makeSandbox, newKey, resource } from '../helpers.js';
import type { Sandbox } from '../helpers.js';
import { dumpSchema, open, schemaUrl, storeOptions, withClient } from './helpers.js';

const database = withDatabase();

let box: Sandbox;
let key: string;
let url: string;
let schema: string;
beforeEach(() => {
  box = makeSandbox();
  key = newKey();
  ({ url, schema } = schemaUrl(database().url));
});
afterEach(() => box.cleanup());

function holdLock(startAt: number) {
  return startChild('hold-lock.mjs', [box.configDir, 'acc_1', String(startAt), url], { ...box.env, CPLANE_STATE_KEY: key });
}

describe('writes', () => {
  it('a save racing another writer is refused by the compare-and-swap, and neither side loses what it stored', async () => {
    const store = await open(box, url, key);
    await store.update((draft) => void (draft.resources['project.a'] = resource('project', 'prj_a')));
    // Another writer that ignores the lock (an old client, a hand-run script with the key) stores serial 2 first.
    await withClient(url, (client) => client.query(`UPDATE ${schema}.states SET serial = serial + 1`));
    const b = authenticResource(key, store.data, 'project.b', resource('project', 'prj_b'));
    await withClient(url, (client) =>
      client.query(`INSERT INTO ${schema}.resources (state_id, address, data) SELECT id, 'project.b', $1::jsonb FROM ${schema}.states`, [
        JSON.stringify(b),
      ]),
    );
    const refused = await store
      .update((draft) => void (draft.resources['project.c'] = resource('project', 'prj_c')))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StateError);
    expect((refused as StateError).code).toBe('STATE_CHANGED');
    expect((refused as StateError).message).toContain('nothing was written');
    await store.close();

    const reader = await open(box, url, key, { lock: false });
    expect(reader.data.serial).toBe(2);
    expect(Object.keys(reader.data.resources).sort()).toEqual(['project.a', 'project.b']);
    await reader.close();
  });

  it('a writer whose lock was taken away cannot write over the new holder', async () => {
    const first = await open(box, url, key);
    await first.update((draft) => void (draft.resources['project.a'] = resource('project', 'prj_a')));
    const other = new PostgresBackend({ url, account: 'acc_1' });
    await other.forceUnlockWith(first.lockId!, { terminate: true });
    const second = await open(box, url, key);
    await second.update((draft) => void (draft.resources['project.b'] = resource('project', 'prj_b')));
    const refused = await first
      .update((draft) => void (draft.resources['project.c'] = resource('project', 'prj_c')))
      .catch((error: unknown) => error);
    expect(['STATE_LOCK_LOST', 'STATE_CHANGED']).toContain((refused as StateError).code);
    await second.close();
    await first.close();
    await other.close();
    const reader = await open(box, url, key, { lock: false });
    expect(Object.keys(reader.data.resources).sort()).toEqual(['project.a', 'project.b']);
    await reader.close();
  });

  it('a write stores only the rows it changes', async () => {
    const store = await open(box, url, key);
    await store.update((draft) => {
      for (let i = 0; i < 200; i++) draft.resources[`project.p${i}`] = resource('project', `prj_${i}`);
    });
    const backendBytes = async () =>
      withClient(
        url,
        async (c) => (await c.query<{ bytes: number }>(`SELECT bytes FROM ${schema}.versions ORDER BY serial DESC LIMIT 1`)).rows[0]!.bytes,
      );
    const big = await backendBytes();
    await store.update(
      (draft) => void (draft.resources['project.p7'] = { ...draft.resources['project.p7']!, inputs: { name: 'renamed' } }),
    );
    const small = await backendBytes();
    expect(small).toBeLessThan(big / 100);
    await store.close();
  });
});

describe('the advisory lock', () => {
  // The race of two processes for the lock is in the conformance suite every backend passes (../backend-conformance.ts).

  it('a holder killed with SIGKILL releases the lock: the next run proceeds without force-unlock', async () => {
    const child = holdLock(0);
    const report = await firstReport(child);
    expect(report.ok).toBe(true);
    const blocked = await open(box, url, key).catch((error: unknown) => error);
    expect((blocked as StateError).code).toBe('STATE_LOCKED');
    child.kill('SIGKILL');
    await exited(child);
    // The server sees the connection close when the process dies; give it a moment on a loaded machine.
    let store;
    for (let attempt = 0; attempt < 100 && !store; attempt++) {
      store = await open(box, url, key).catch(async (error: unknown) => {
        if ((error as StateError).code !== 'STATE_LOCKED') throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
        return undefined;
      });
    }
    expect(store?.lockId).toBeDefined();
    await store!.close();
  });

  it('force-unlock refuses to end a live holder without --force, and ends its session with it', async () => {
    const holder = await open(box, url, key);
    const backend = new PostgresBackend({ url, account: 'acc_1' });
    const refused = await backend.forceUnlockWith(holder.lockId!, { terminate: false }).catch((error: unknown) => error);
    expect((refused as StateError).code).toBe('STATE_LOCKED');
    expect((refused as StateError).hint).toContain('--force');
    const mismatch = await backend.forceUnlockWith('not-the-id', { terminate: true }).catch((error: unknown) => error);
    expect((mismatch as StateError).code).toBe('STATE_LOCK_ID_MISMATCH');
    const removed = await backend.forceUnlockWith(holder.lockId!, { terminate: true });
    expect(removed.id).toBe(holder.lockId);
    const next = await open(box, url, key);
    await next.close();
    await holder.close();
    await backend.close();
  });
});

describe('history', () => {
  it('keeps a version per save with its serial, time, user, host and command', async () => {
    const store = await open(box, url, key, { command: 'cplane apply prod' });
    await store.update((draft) => void (draft.resources['project.a'] = resource('project', 'prj_a')));
    await store.update((draft) => void delete draft.resources['project.a']);
    await store.close();
    const backend = new PostgresBackend({ url, account: 'acc_1' });
    const versions = await backend.history(10);
    await backend.close();
    expect(versions.map((v) => v.serial)).toEqual([2, 1, 0]);
    expect(versions[0]).toMatchObject({ host: hostname(), command: 'cplane apply prod', changes: 1 });
    expect(Date.parse(versions[0]!.savedAt)).toBeGreaterThan(Date.now() - 600_000);
  });
});

describe('secrets', () => {
  it('no table holds a secret in plaintext, nor the password of the URL', async () => {
    const token = `tok_plaintext_${newKey()}`;
    const providerKey = `sk-provider-${newKey()}`;
    const recordValue = `record-value-${newKey()}`;
    const store = await open(box, url, key);
    await store.update((draft) => {
      draft.resources['gateway_token.prod/ci'] = resource('gateway_token', 'tok_1', {
        sealed: { plaintext: store.crypto.seal('gateway_token.prod/ci', token) },
      });
      draft.resources['credential.openai'] = resource('credential', 'cred_1', {
        fingerprints: { secret: store.crypto.fingerprint('credential.openai', 'secret', providerKey) },
      });
      draft.journal.push({
        id: 'j1',
        address: 'record.db',
        stepId: 's1',
        operation: 'createRecord',
        pathParams: {},
        idempotencyKey: 'k1',
        body: { sealed: store.crypto.sealBody('record.db', JSON.stringify({ value: recordValue })) },
        createdAt: new Date().toISOString(),
      } as never);
    });
    const dump = await dumpSchema(url, schema);
    await store.close();
    expect(dump).toContain('gateway_token.prod/ci');
    for (const secret of [token, providerKey, recordValue, key, new URL(url).password]) expect(dump).not.toContain(secret);
  });

  it('every message shows the URL with its password masked', async () => {
    const password = new URL(url).password;
    const wrongPort = new URL(url);
    wrongPort.port = '1';
    const wrongPassword = new URL(url);
    wrongPassword.password = 'not-the-password';
    const holder = await open(box, url, key);
    const errors = await Promise.all([
      open(box, wrongPort.toString(), key).catch((error: unknown) => error),
      open(box, wrongPassword.toString(), key).catch((error: unknown) => error),
      open(box, url, key).catch((error: unknown) => error),
      open(box, url.replace('schema=', 'schema=Bad-'), key).catch((error: unknown) => error),
    ]);
    await holder.close();
    expect(errors.map((e) => (e as StateError).code)).toEqual([
      'STATE_UNREACHABLE',
      'STATE_UNREACHABLE',
      'STATE_LOCKED',
      'STATE_URL_INVALID',
    ]);
    for (const error of errors) {
      const text = `${(error as StateError).message}\n${(error as StateError).hint ?? ''}`;
      expect(text).not.toContain(password);
      expect(text).not.toContain('not-the-password');
    }
    expect((errors[0] as StateError).message).toContain(`postgres://postgres:***@127.0.0.1:1/`);
    expect(holder.path).toContain(':***@');
  });
});

describe('choosing the state', () => {
  it('keeps one state per account and workspace', async () => {
    const prod = await openState(storeOptions(box, url, key, { workspace: 'prod' }));
    await prod.update((draft) => void (draft.resources['project.a'] = resource('project', 'prj_a')));
    await prod.close();
    const dflt = await open(box, url, key);
    expect(dflt.data.resources).toEqual({});
    expect(dflt.path).toContain('workspace default');
    await dflt.close();
  });

  it('refuses a workspace name that is not a plain word', async () => {
    const refused = await openState(storeOptions(box, url, key, { workspace: '../prod' })).catch((error: unknown) => error);
    expect((refused as StateError).code).toBe('STATE_WORKSPACE_INVALID');
    expect((refused as StateError).message).toBe('The workspace name "../prod" is not allowed.');
  });
});
