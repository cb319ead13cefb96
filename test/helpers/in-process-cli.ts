// The CLI's own entry (`runCli` of src/cli/main.ts, what bin/cplane.js calls) run in the test's process, with the
// environment and folder it would have as a subprocess. For arranging a story and for diagnostics, where the
// process is not the subject: no Node start and no bundle load per run. Exit codes, stdout and stderr are the
// command's own; what only a process does (signals, exit, the built bundle, a TTY) needs the real binary.
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';

/** A text the CLI writes to, as a pipe would take it: every chunk, at once. */
function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs `cplane ARGS` in this process with `env` and `cwd`, stdin empty (as a subprocess with stdin ignored). */
export async function runInProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli(args, { env, cwd, stdout: stdout.stream, stderr: stderr.stream, stdin: Readable.from([]) });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
