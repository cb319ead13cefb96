/**
 * `cplane run --watch`: the command runs with the values it was given until one of them changes (a token renewed and
 * delivered by `reconcile`, a value rotated), then it is stopped with every process it started (its process group:
 * SIGTERM, then SIGKILL once `graceMs` has passed, and waited for until none is left) and started again with the new values, for programs that read their environment once. Changes that arrive while
 * it restarts are taken by the same restart, or by one more. cplane ends when the command ends on its own (its exit
 * code is cplane's), or when SIGINT or SIGTERM sent to cplane has ended it.
 */
import { AbortError } from '../../errors.js';
import { forwardSignals, startChild, type RunningChild } from './child-process.js';

export interface RestartingRun {
  command: string;
  args: string[];
  cwd: string;
  /** The environment without the values. */
  env: NodeJS.ProcessEnv;
  /** The values by variable, as first read. */
  values: Record<string, string>;
  graceMs: number;
  /** A line for the person watching (never a value). */
  say(line: string): void;
  /** Starts watching: `changed` is called with each newer value of a variable. Returns the function that stops it. */
  watch(changed: (variable: string, value: string, version: number) => void): () => void;
}

export async function runRestarting(run: RestartingRun): Promise<number> {
  const values = { ...run.values };
  // In a group of its own: a restart stops every process the command started, not only the command.
  const start = () => startChild(run.command, run.args, { cwd: run.cwd, env: { ...run.env, ...values }, ownGroup: true });
  let current: RunningChild = start();
  /** Children stopped by a restart: their end is not cplane's. */
  const replaced = new WeakSet<RunningChild>();
  let signalled = false;
  let restarting: Promise<void> | undefined;
  let again = false;

  return await new Promise<number>((resolve, reject) => {
    const stopSignals = forwardSignals(
      () => current,
      () => (signalled = true),
    );
    let stopWatching = () => {};
    const finish = (outcome: { code: number } | { error: unknown }) => {
      stopWatching();
      stopSignals();
      if ('code' in outcome) resolve(outcome.code);
      else reject(outcome.error);
    };
    const follow = (running: RunningChild) => {
      running.exited.then(
        (code) => {
          if (!replaced.has(running)) finish({ code });
        },
        (error: unknown) => finish({ error }),
      );
    };
    const restart = async () => {
      do {
        again = false;
        const old = current;
        replaced.add(old);
        const code = await old.stop(run.graceMs);
        if (signalled) return finish({ code: code ?? 1 });
        current = start();
        follow(current);
      } while (again);
    };
    follow(current);
    stopWatching = run.watch((variable, value, version) => {
      if (values[variable] === value) return;
      values[variable] = value;
      run.say(`cplane run: ${variable} changed (value version ${version}); restarting ${run.command}.`);
      if (restarting) {
        again = true;
        return;
      }
      restarting = restart()
        .catch((error: unknown) =>
          finish({ error: error instanceof AbortError ? error : new AbortError(`Restarting ${run.command} failed: ${String(error)}`) }),
        )
        .finally(() => (restarting = undefined));
    });
  });
}
