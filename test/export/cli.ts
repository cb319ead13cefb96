// Runs the built `cplane` binary as a user would. Asynchronous, so an emulator in this process keeps answering.
import { spawn } from 'node:child_process';
import { builtCli } from '../helpers/built-cli.js';


export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCplane(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli(), ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
