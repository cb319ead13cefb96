/**
 * A reader that goes away early (`cplane output | head -4`) closes the pipe the CLI writes to. The command
 * ends as it would have, with its own exit code, and no unhandled EPIPE error: on stdout and on stderr.
 * The real CLI as a subprocess; our end of its pipe is closed before it writes anything.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'cplane.js');
const folder = mkdtempSync(join(tmpdir(), 'cplane-pipe-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs the CLI with `closed` (stdout or stderr) closed at our end from the start; returns the exit code and the other stream. */
function runWithClosed(closed: 'stdout' | 'stderr', args: string[]): Promise<{ code: number | null; other: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: folder,
      env: { PATH: process.env.PATH, HOME: folder, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child[closed].destroy();
    let other = '';
    child[closed === 'stdout' ? 'stderr' : 'stdout'].on('data', (chunk: Buffer) => (other += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, other }));
  });
}

describe('a closed pipe ends a command quietly', () => {
  it('stdout: `cplane openapi` (a large document) closed by its reader exits 0 and prints no error', async () => {
    const run = await runWithClosed('stdout', ['openapi']);
    expect(run.other).toBe('');
    expect(run.code).toBe(0);
  });

  it('stderr: `cplane validate` whose warnings have no reader still prints its result and exits 0', async () => {
    writeFileSync(join(folder, 'main.yaml'), 'version: 1\nprojects:\n  shop:\n    name: shop\n    description: Shop\n');
    const run = await runWithClosed('stderr', ['validate', '.', '--var', 'undeclared=1']);
    expect(run.other).toBe('Configuration is valid: 1 resource in 1 file.\n');
    expect(run.code).toBe(0);
  });
});
