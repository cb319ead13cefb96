// `npm start` is a newcomer's first look: it must apply the quickstart, find nothing left to do, list the
// tokens without their plaintext, point to what to run next, and leave nothing behind in the repository; and
// the README's "Demo output" must be what it prints.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtModule } from '../helpers/built-cli.js';

const root = resolve(import.meta.dirname, '../..');

/** The demo, run once for the whole file. */
let demo: SpawnSyncReturns<string> | undefined;
const run = () =>
  (demo ??= spawnSync(process.execPath, [builtModule('demo/main.js')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  }));

/**
 * What stays the same from run to run: ids, the port, the temporary folder, durations and token prefixes
 * masked, and the apply's progress lines (which finish in the order the requests happen to) sorted per block.
 */
function stable(text: string): string[] {
  const masked = text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
    .replace(/\S*cplane-demo-[A-Za-z0-9]+/g, 'TEMP')
    .replace(/\((\d+m)?\d+(\.\d+)?s\)/g, '(DURATION)')
    .replace(/gwt_\w+/g, 'gwt_PREFIX');
  const lines = masked.trimEnd().split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j < lines.length && lines[j]!.startsWith('apply: ')) j++;
    if (j > i) {
      out.push(...lines.slice(i, j).sort());
      i = j;
    } else out.push(lines[i++]!);
  }
  return out;
}

describe('npm start (the demo)', () => {
  it('applies examples/quickstart to the embedded emulator, then plans no changes and shows the tokens sealed', () => {
    const { stdout, stderr, status } = run();
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain('Plan: 8 to add, 0 to change, 0 to replace, 0 to remove.');
    expect(stdout).toMatch(/Apply complete: 8 done, 0 failed, 0 skipped/);
    expect(stdout).toContain('No changes. Your infrastructure matches the configuration.');
    expect(stdout).toMatch(/gateway_token\.prod\/ci = \(sensitive: use --reveal\) {2}\[id [0-9a-f-]{36}, prefix gwt_\w+\]/);
    // No demo secret is ever printed.
    for (const line of readFileSync(resolve(root, 'examples/quickstart/demo.env'), 'utf8').split('\n')) {
      const value = line.split('=').slice(1).join('=').trim();
      if (value) expect(stdout).not.toContain(value);
    }
    const status2 = spawnSync('git', ['status', '--porcelain', '--ignored', 'examples'], { cwd: root, encoding: 'utf8' });
    expect(status2.stdout).toBe('');
  });

  it('ends by pointing to `cplane emulator` and `cplane init`', () => {
    const done = run().stdout.slice(run().stdout.indexOf('== Done'));
    expect(done).toMatch(/^ {2}npx cplane emulator +run this emulator yourself/m);
    expect(done).toMatch(/^ {2}npx cplane init examples\/quickstart +make the state key/m);
  });

  it('is what the README\'s "Demo output" shows (ids, port, temporary folder, durations and token prefixes aside)', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const block = /<summary>Demo output<\/summary>\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README.md has a "Demo output" block').toBeDefined();
    expect(stable(block!)).toEqual(stable(run().stdout));
  });
});

it('`npm start` builds only when a source changed, as `npm test` does (it rebuilt everything on every start)', () => {
  const { scripts } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(scripts.prestart).toBe('node scripts/build-if-stale.mjs');
  expect(scripts.pretest).toBe(scripts.prestart);
});
