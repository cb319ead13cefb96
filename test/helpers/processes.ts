// Long-running child processes in tests: started, watched line by line, and checked for life.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Starts a long-running process; `output()` is what it has printed, `next(match)` waits for a line matching. */
export function running(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child: ChildProcess = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: { match: RegExp; resolve: (line: string) => void }[] = [];
  const check = () => {
    for (const wait of [...waiting]) {
      const line = stdout.split('\n').find((l) => wait.match.test(l));
      if (line !== undefined) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve(line);
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    check();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    next: (match: RegExp) =>
      new Promise<string>((done, fail) => {
        waiting.push({ match, resolve: done });
        check();
        void exited.then(() => fail(new Error(`the process ended before printing ${match}: ${stdout}\n${stderr}`)));
      }),
  };
}

/** Alive: `kill(pid, 0)` succeeds and it is not a zombie (exited, waiting to be reaped by a parent that may never reap it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!);
  } catch {
    return false;
  }
}
