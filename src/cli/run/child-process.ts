/**
 * The command `cplane run` starts: spawned with the terminal as its own (stdio inherited), SIGINT and SIGTERM sent to
 * cplane passed on to it, and its end turned into cplane's exit code (128 + the signal's number when a signal ended
 * it, as a shell says). `cplane run --watch` starts it again with new values (./run-watch.ts), in a process group of
 * its own (`ownGroup`), so that stopping it stops what it started too (@cplane/sdk/internal/process-group). A command
 * run once stays in cplane's group: it keeps the terminal (a program that reads it is not stopped by SIGTTIN).
 */
import { signalGroup, stopGroup } from '@cplane/sdk/internal/process-group';
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { AbortError } from '../../errors.js';

export interface RunningChild {
  child: ChildProcess;
  /** Its exit code as cplane's; rejected when it could not start. */
  exited: Promise<number>;
  /** Sends a signal to it, and with `ownGroup` to every process of its group. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, SIGKILL once `graceMs` has passed; resolves with its exit code once it (and with `ownGroup`, its group) has ended. */
  stop(graceMs: number): Promise<number | undefined>;
}

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

export function startChild(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ownGroup?: boolean },
): RunningChild {
  const ownGroup = options.ownGroup === true;
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: 'inherit', detached: ownGroup });
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new AbortError(`${command}: command not found.`, "Give the command's path, or a command on PATH, after --.")
          : error,
      );
    });
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  const signal = (name: NodeJS.Signals) => (ownGroup ? signalGroup(child, name) : void child.kill(name));
  return {
    child,
    exited,
    signal,
    async stop(graceMs) {
      if (ownGroup) return await stopGroup(child, exited, graceMs);
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited.catch(() => undefined);
      clearTimeout(kill);
      return code;
    },
  };
}

/** Passes SIGINT and SIGTERM on to the child `current()` returns (after `onSignal`); returns the function that stops it. */
export function forwardSignals(current: () => RunningChild, onSignal?: () => void): () => void {
  const forward = (signal: NodeJS.Signals) => {
    onSignal?.();
    current().signal(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  return () => {
    for (const signal of FORWARDED) process.off(signal, forward);
  };
}

/** Runs the command once: cplane's exit code is its. */
export async function runChildOnce(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  const running = startChild(command, args, options);
  const stop = forwardSignals(() => running);
  try {
    return await running.exited;
  } finally {
    stop();
  }
}
