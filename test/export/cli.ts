// Runs `cplane` for the export stories. What export, plan and apply write is the subject, not the process, so
// `runCplane` runs the CLI's own entry in-process (test/helpers/in-process-cli.ts); `runBuiltCplane` starts the
// built binary as a user would, for the story that keeps the real process. Both are asynchronous, so an emulator
// in this process keeps answering.
import { spawn } from 'node:child_process';
import { builtCli } from '../helpers/built-cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a run gets: exactly `env`, plus PATH. */
const envOf = (env: Record<string, string>): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '', ...env });

export function runCplane(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return runInProcess(args, envOf(options.env), options.cwd);
}

export function runBuiltCplane(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli(), ...args], { cwd: options.cwd, env: envOf(options.env), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
