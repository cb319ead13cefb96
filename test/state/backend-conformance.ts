/**
 * The one conformance suite every state backend passes (after OpenTofu's
 * shared encryption compliance test): what the store relies on, through the
 * StateBackend interface (load, append with its compare-and-swap, compact,
 * lock) and through openState (a state written, closed and read back; the
 * lock held against a second writer and raced for by two processes).
 * Each backend runs it from a thin test file: local-file-conformance.test.ts
 * here, postgres/conformance.test.ts on a real PostgreSQL server.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CURRENT_VERSION, openState, StateError, StateLockedError } from '../../src/state/index.js';
import type { LockInfo, OpenStateOptions, StateBackend, StateFileContents } from '../../src/state/index.js';
import { replay } from '../../src/state/replay.js';
import { exited, firstReport, readyToGo, startChild } from './child.js';
import { makeSandbox, newKey, resource } from './helpers.js';
import type { Sandbox } from './helpers.js';

/** One backend under test, on a fresh location per test. */
export interface BackendLocation {
  /** The state location for openState and the racing children: undefined for the default file under the configuration folder. */
  statePath: string | undefined;
  /** A new backend object on that location (the caller closes it). */
  backend(): StateBackend;
  /** Whatever the backend leaves behind of a released lock, checked to be gone (the file backend's lock file). */
  lockLeftover?(): boolean;
}

export interface BackendUnderTest {
  /** A fresh location in the sandbox, for one test. */
  locate(box: Sandbox): BackendLocation;
  /** How the backend names the host of a lock's holder (the PostgreSQL backend adds the user). */
  holderHost: RegExp;
  /** The command the "locked" hint tells the user to run to clear the lock of `lockId`. */
  forceUnlockCommand(lockId: string): string;
}

export function describeStateBackend(name: string, backendUnderTest: () => BackendUnderTest): void {
  describe(`state backend conformance: ${name}`, () => {
    let box: Sandbox;
    let key: string;
    let location: BackendLocation;
    let options: OpenStateOptions;
    const opened: StateBackend[] = [];
    beforeEach(() => {
      box = makeSandbox();
      key = newKey();
      location = backendUnderTest().locate(box);
      options = {
        configDir: box.configDir,
        account: 'acc_1',
        ...(location.statePath ? { statePath: location.statePath } : {}),
        env: { ...box.env, CPLANE_STATE_KEY: key },
        command: 'cplane apply',
        lock: true,
      };
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((backend) => backend.close?.()));
      box.cleanup();
    });

    const backend = (): StateBackend => {
      const made = location.backend();
      opened.push(made);
      return made;
    };
    const lockInfo = (command: string): LockInfo => ({
      id: randomUUID(),
      pid: process.pid,
      host: hostname(),
      time: new Date().toISOString(),
      command,
    });
    const current = async (of: StateBackend): Promise<StateFileContents | undefined> => {
      const loaded = await of.load();
      return loaded && replay(loaded, of.location).contents;
    };
    const base = (serial: number): StateFileContents => ({
      version: CURRENT_VERSION,
      account: 'acc_1',
      lineage: 'lineage-1',
      serial,
      resources: {},
      journal: [],
      header: { keyCheck: 'ab'.repeat(32) },
    });

    it('holds no state until one is stored; a stored state reads back as stored', async () => {
      const store = backend();
      expect(await store.load()).toBeUndefined();
      const handle = await store.lock(lockInfo('conformance'));
      await store.compact(base(0));
      expect(await current(store)).toEqual(base(0));
      await store.unlock(handle);
    });

    it('appends a group only at the next serial: any other is refused with STATE_CHANGED and nothing is recorded', async () => {
      const store = backend();
      const handle = await store.lock(lockInfo('conformance'));
      await store.compact(base(0));
      await store.append({ serial: 1, changes: [{ type: 'resource', address: 'project.a', resource: resource('project', 'prj_a') }] });
      for (const serial of [1, 3]) {
        const refused = await store
          .append({ serial, changes: [{ type: 'resource', address: 'project.b', resource: resource('project', 'prj_b') }] })
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(StateError);
        expect((refused as StateError).code).toBe('STATE_CHANGED');
      }
      await store.append({
        serial: 2,
        changes: [
          { type: 'resource-removed', address: 'project.a' },
          { type: 'resource', address: 'project.c', resource: resource('project', 'prj_c') },
        ],
      });
      const stored = await current(backend());
      expect(stored?.serial).toBe(2);
      expect(Object.keys(stored!.resources)).toEqual(['project.c']);
      // Folding the groups into a snapshot changes nothing a reader sees.
      await store.compact(stored!);
      expect(await current(backend())).toEqual(stored);
      await store.unlock(handle);
    });

    it('a state written through the store is read back the same, at its serial', async () => {
      const writer = await openState(options);
      await writer.update((draft) => void (draft.resources['project.a'] = resource('project', 'prj_a')));
      await writer.update((draft) => {
        draft.resources['project.b'] = resource('project', 'prj_b');
        delete draft.resources['project.a'];
      });
      const written = structuredClone(writer.data);
      await writer.close();
      const reader = await openState({ ...options, lock: false });
      expect(reader.data).toEqual(written);
      expect(reader.data.serial).toBe(2);
      await reader.close();
    });

    it('a second writer is refused at once, naming the holder; a reader does not need the lock', async () => {
      const first = await openState(options);
      const error = (await openState(options).catch((e: unknown) => e)) as StateLockedError;
      expect(error).toBeInstanceOf(StateLockedError);
      expect(error.code).toBe('STATE_LOCKED');
      expect(error.holder.id).toBe(first.lockId);
      expect(error.hint).toContain(backendUnderTest().forceUnlockCommand(first.lockId!));
      const reader = await openState({ ...options, lock: false });
      expect(reader.data.serial).toBe(0);
      await reader.close();
      await first.close();
      await (await openState(options)).close();
    });

    it('two processes racing for the lock: exactly one wins, the other names the holder', async () => {
      const { holderHost, forceUnlockCommand } = backendUnderTest();
      // Create the state first, so the race is about the lock only.
      await (await openState(options)).close();
      for (let round = 0; round < 2; round++) {
        // Both children load first, then get their go at once: the race is for the lock, not for starting Node.
        const children = [0, 1].map(() =>
          startChild('hold-lock.mjs', [box.configDir, 'acc_1', 'go', ...(location.statePath ? [location.statePath] : [])], options.env),
        );
        await Promise.all(children.map(readyToGo));
        for (const child of children) child.stdin.write('go\n');
        const reports = await Promise.all(children.map(firstReport));
        const winners = reports.filter((r) => r.ok);
        const losers = reports.filter((r) => !r.ok);
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(1);
        const [winner, loser] = [winners[0]!, losers[0]!];
        expect(loser.code).toBe('STATE_LOCKED');
        expect(loser.holder).toMatchObject({ id: winner.lockId, pid: winner.pid, command: `hold-lock ${winner.pid}` });
        expect(loser.holder!.host).toMatch(holderHost);
        expect(loser.message).toBe(
          `The state is locked by pid ${winner.pid} on ${loser.holder!.host}, running \`hold-lock ${winner.pid}\` since ${loser.holder!.time}, lock id ${winner.lockId}.`,
        );
        expect(loser.hint).toContain(forceUnlockCommand(winner.lockId!));
        for (const child of children) child.stdin.end();
        await Promise.all(children.map(exited));
        expect(location.lockLeftover?.() ?? false).toBe(false);
      }
      // Released: the next writer proceeds.
      await (await openState(options)).close();
    });
  });
}
