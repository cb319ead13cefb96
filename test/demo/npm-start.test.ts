// `npm start` is a newcomer's first look: it must apply the quickstart, find nothing left to do, list the
// tokens without their plaintext, and leave nothing behind in the repository.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtModule } from '../helpers/built-cli.js';

const root = resolve(import.meta.dirname, '../..');

describe('npm start (the demo)', () => {
  it('applies examples/quickstart to the embedded emulator, then plans no changes and shows the tokens sealed', () => {
    const run = spawnSync(process.execPath, [builtModule('demo/main.js')], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Plan: 8 to add, 0 to change, 0 to replace, 0 to remove.');
    expect(run.stdout).toMatch(/Apply complete: 8 done, 0 failed, 0 skipped/);
    expect(run.stdout).toContain('No changes. Your infrastructure matches the configuration.');
    expect(run.stdout).toMatch(/gateway_token\.prod\/ci = \(sensitive: use --reveal\) {2}\[id [0-9a-f-]{36}, prefix gwt_\w+\]/);
    // No demo secret is ever printed.
    for (const line of readFileSync(resolve(root, 'examples/quickstart/demo.env'), 'utf8').split('\n')) {
      const value = line.split('=').slice(1).join('=').trim();
      if (value) expect(run.stdout).not.toContain(value);
    }
    const status = spawnSync('git', ['status', '--porcelain', '--ignored', 'examples'], { cwd: root, encoding: 'utf8' });
    expect(status.stdout).toBe('');
  });
});
