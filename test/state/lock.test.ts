import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forceUnlockState, openState, StateError, StateLockedError } from '../../src/state/index.js';
import type { OpenStateOptions, StateError as StateErrorType } from '../../src/state/index.js';
import { exited, firstReport, startChild } from './child.js';
import { makeSandbox, newKey } from './helpers.js';
import type { Sandbox } from './helpers.js';
import { builtModule } from '../helpers/built-cli.js';

let box: Sandbox;
let options: OpenStateOptions;
beforeEach(() => {
  box = makeSandbox();
  options = {
    configDir: box.configDir,
    account: 'acc_1',
    env: { ...box.env, CPLANE_STATE_KEY: newKey() },
    command: 'cplane apply',
    lock: true,
  };
});
afterEach(() => box.cleanup());

describe('the state lock', () => {
  // The race of two processes for the lock is in the conformance suite every backend passes (backend-conformance.ts).

  it('a second writer in the same process fails at once; a reader does not need the lock', async () => {
    const first = await openState(options);
    const error = (await openState(options).catch((e: unknown) => e)) as StateLockedError;
    expect(error).toBeInstanceOf(StateLockedError);
    expect(error.code).toBe('STATE_LOCKED');
    expect(error.stale).toBe(false);
    expect(error.holder.id).toBe(first.lockId);
    expect(error.hint).toBe(`Wait for it to finish. If it is gone, clear the lock with \`cplane force-unlock ${first.lockId}\`.`);
    const reader = await openState({ ...options, lock: false });
    expect(reader.data.serial).toBe(0);
    await first.close();
    await (await openState(options)).close();
  });

  it('a lock whose holder was killed on this host is taken over, with a note naming the holder', async () => {
    const child = startChild('hold-lock.mjs', [box.configDir, 'acc_1', '0'], options.env);
    const holder = await firstReport(child);
    expect(holder.ok).toBe(true);
    child.kill('SIGKILL');
    await exited(child);

    const notes: string[] = [];
    const store = await openState({ ...options, onNotice: (note) => notes.push(note) });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      new RegExp(
        `^Took over the state lock of .*state\\.json: its holder \\(pid ${holder.pid} on ${hostname()}, running \`hold-lock ${holder.pid}\` since .*, lock id ${holder.lockId}\\) is no longer running\\.$`,
      ),
    );
    expect(store.lockId).not.toBe(holder.lockId);
    await store.close();
    expect(existsSync(`${box.configDir}/.cplane/acc_1/state.json.lock`)).toBe(false);
  });

  it('force-unlock removes a lock only by its id, and one whose holder runs on this host only with force', async () => {
    const child = startChild('hold-lock.mjs', [box.configDir, 'acc_1', '0'], options.env);
    const holder = await firstReport(child);
    expect(holder.ok).toBe(true);

    const mismatch = (await forceUnlockState({ ...options, lockId: 'not-the-id' }).catch((e: unknown) => e)) as StateErrorType;
    expect(mismatch).toBeInstanceOf(StateError);
    expect(mismatch.code).toBe('STATE_LOCK_ID_MISMATCH');
    expect(mismatch.message).toContain(`The state is locked with id ${holder.lockId}`);

    const alive = (await forceUnlockState({ ...options, lockId: holder.lockId! }).catch((e: unknown) => e)) as StateErrorType;
    expect(alive.code).toBe('STATE_LOCK_HOLDER_ALIVE');
    expect(alive.message).toMatch(
      new RegExp(
        `^The lock ${holder.lockId} is held by pid ${holder.pid} on this host, which is still running \\(\`hold-lock ${holder.pid}\` since .*\\); nothing was removed\\.$`,
      ),
    );
    expect(alive.hint).toBe(
      `Wait for it to finish, or stop it. To remove the lock anyway, run \`cplane force-unlock ${holder.lockId} --force\`.`,
    );

    const { removed } = await forceUnlockState({ ...options, lockId: holder.lockId!, force: true });
    expect(removed.pid).toBe(holder.pid);
    const notLocked = (await forceUnlockState({ ...options, lockId: holder.lockId! }).catch((e: unknown) => e)) as StateErrorType;
    expect(notLocked.code).toBe('STATE_NOT_LOCKED');
    child.kill('SIGKILL');
    await exited(child);
    await (await openState(options)).close();
  });

  it('a process that exits without closing the store still releases its lock', () => {
    const dist = pathToFileURL(builtModule('state/index.js')).href;
    const script = `import { openState } from '${dist}';
      await openState({ configDir: process.argv[1], account: 'acc_1', env: process.env, command: 'exits', lock: true });
      process.exit(3);`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, box.configDir], {
      env: options.env,
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(3);
    expect(existsSync(`${box.configDir}/.cplane/acc_1/state.json`)).toBe(true);
    expect(existsSync(`${box.configDir}/.cplane/acc_1/state.json.lock`)).toBe(false);
  });
});
