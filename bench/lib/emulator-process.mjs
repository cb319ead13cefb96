// `cplane emulator` in a process of its own, as a user runs it: its first line is the URL it serves.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = join(fileURLToPath(new URL('../..', import.meta.url)), 'bin/cplane.js');

export async function startEmulatorProcess() {
  const child = spawn(process.execPath, [bin, 'emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const url = (await lines.next()).value;
  return { url, close: () => child.kill('SIGTERM') };
}
