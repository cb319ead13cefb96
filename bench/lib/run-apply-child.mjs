// Runs one apply in its own process (bench/lib/apply-child.js) so its CPU time and peak RSS are the CLI's alone,
// against an emulator of this process, and returns the child's figures with the requests the apply alone sent:
// the emulator's counts are reset once the child says it has planned.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./apply-child.js', import.meta.url));

/** `mode`: `real` state writes, or `noop` ones for comparison; `account` defaults to the child's. */
export async function runApplyChild(emulator, { dir, parallelism, mode = 'real', account }) {
  const lines = [];
  await new Promise((resolve, reject) => {
    const args = [child, emulator.url, dir, String(parallelism), mode, ...(account ? [account] : [])];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    proc.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const line = JSON.parse(buffered.slice(0, at));
        buffered = buffered.slice(at + 1);
        if (line.planned) emulator.resetStats();
        else lines.push(line);
      }
    });
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`apply child exited ${code}`))));
  });
  return { ...lines[0], requests: emulator.stats().requests };
}
