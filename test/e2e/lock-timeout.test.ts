// `--lock-timeout DURATION`: a second writer waits while another process holds the state lock, says whom it waits
// for, and goes on once the lock is released; without the flag it fails at once naming the holder.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, firstReport, startChild } from '../state/child.js';
import { account, smallConfig, world, type World } from './helpers.js';

const root = join(import.meta.dirname, '..', '..');

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe('--lock-timeout', () => {
  it('makes a second apply wait for the lock another process holds, and apply once it is released', { timeout: 120_000 }, async () => {
    w = await world();
    w.config(smallConfig());
    const holder = startChild('hold-lock.mjs', [w.dir, account, '0'], w.env);
    const held = await firstReport(holder);
    expect(held.ok).toBe(true);

    // Without the flag: refused at once, naming the holder.
    const atOnce = await w.cli(['apply', w.dir, '--auto-approve']);
    expect(atOnce.code).toBe(1);
    expect(atOnce.stderr).toContain(`The state is locked by pid ${held.pid}`);

    const waiting = spawn(process.execPath, [join(root, 'bin', 'cplane.js'), 'apply', w.dir, '--auto-approve', '--lock-timeout', '10m'], {
      env: w.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    waiting.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const done = new Promise<number | null>((resolve) => waiting.on('close', resolve));
    // Released only once the second apply says it waits: nothing here depends on how long anything takes.
    // (One that ends instead of waiting fails here at once.)
    await new Promise<void>((resolve, reject) => {
      waiting.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('Waiting up to 600 s for the state lock')) resolve();
      });
      void done.then((code) => reject(new Error(`the second apply ended (code ${String(code)}) instead of waiting: ${stderr}`)));
    });
    expect(stderr).toContain(`held by pid ${held.pid}`);
    holder.stdin.end();
    await exited(holder);
    expect(await done, stderr).toBe(0);
    expect(stdout).toMatch(/Apply complete: 4 done, 0 failed/);
  });

  it('refuses a duration it cannot read, naming the forms it takes', { timeout: 60_000 }, async () => {
    w = await world();
    w.config(smallConfig());
    const run = await w.cli(['apply', w.dir, '--auto-approve', '--lock-timeout', '10 minutes']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--lock-timeout expects a duration such as 30s, 5m or 1m30s, got "10 minutes".');
  });
});
