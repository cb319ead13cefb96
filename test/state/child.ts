/**
 * Runs the test children in fixtures/, which use the built dist/ (as the CLI does): two processes racing for a
 * lock, a process killed while saving.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LockInfo } from '../../src/state/index.js';
import { assertFreshBuild } from '../helpers/built-cli.js';

export function startChild(fixture: string, args: string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  // The fixtures import dist/state/index.js: refused when the build is missing or stale.
  assertFreshBuild();
  return spawn(process.execPath, [fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url)), ...args], { env, stdio: 'pipe' });
}

/** Resolves with each line the child prints on stdout, through `onLine`, until `onLine` returns true. */
export function readLines(child: ChildProcessWithoutNullStreams, onLine: (line: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    const done = () => {
      child.stdout.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (onLine(line)) return done();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('close', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before it was done: ${stderr}`)));
  });
}

export function exited(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** What fixtures/hold-lock.mjs reports: the lock it took, or why it could not. */
export interface ChildReport {
  ok: boolean;
  pid: number;
  lockId?: string;
  code?: string;
  message?: string;
  hint?: string;
  holder?: LockInfo;
}

/** The first line a hold-lock child prints. */
export async function firstReport(child: ChildProcessWithoutNullStreams): Promise<ChildReport> {
  let report: ChildReport | undefined;
  await readLines(child, (line) => {
    report = JSON.parse(line) as ChildReport;
    return true;
  });
  return report!;
}

/** Waits for a hold-lock child started with START `go` to say it is loaded (it then waits for a line on stdin). */
export function readyToGo(child: ChildProcessWithoutNullStreams): Promise<void> {
  return readLines(child, (line) => (JSON.parse(line) as { ready?: boolean }).ready === true);
}
