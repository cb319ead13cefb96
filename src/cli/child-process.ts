/**
 * The command `cplane run` starts: spawned with the terminal as its own (stdio inherited), SIGINT and SIGTERM sent to
 * cplane passed on to it, and its end turned into cplane's exit code (128 + the signal's number when a signal ended
 * it, as a shell says). `cplane run --watch` starts it again with new values (./run-watch.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { AbortError } from '../errors.js';

export interface RunningChild {
  child: ChildProcess;
  /** Its exit code as cplane's; rejected when it could not start. */
  exited: Promise<number>;
}

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

export function startChild(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): RunningChild {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: 'inherit' });
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
  return { child, exited };
}

/** Passes SIGINT and SIGTERM on to the child `current()` returns (after `onSignal`); returns the function that stops it. */
export function forwardSignals(current: () => ChildProcess, onSignal?: () => void): () => void {
  const forward = (signal: NodeJS.Signals) => {
    onSignal?.();
    current().kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  return () => {
    for (const signal of FORWARDED) process.off(signal, forward);
  };
}

/** Runs the command once: cplane's exit code is its. */
export async function runChildOnce(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  const running = startChild(command, args, options);
  const stop = forwardSignals(() => running.child);
  try {
    return await running.exited;
  } finally {
    stop();
  }
}
