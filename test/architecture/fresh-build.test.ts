/**
 * Tests that start the CLI run the built dist/: when it is missing or older
 * than a source, they fail with a message that says to build, rather than
 * pass or fail on old code. File times are set, never waited for.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { staleBuild } from '../helpers/built-cli.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cplane-fresh-'));
  mkdirSync(join(root, 'src', 'planner'), { recursive: true });
  mkdirSync(join(root, 'dist', 'bundle'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes `path` under the fixture with its modification time `seconds` after the epoch. */
function file(path: string, seconds: number): void {
  writeFileSync(join(root, path), 'x');
  utimesSync(join(root, path), seconds, seconds);
}

it('accepts a build made after every source changed', () => {
  file('src/planner/make-plan.ts', 1_000);
  file('dist/build-done', 2_000);
  expect(staleBuild(root)).toBeUndefined();
});

it('refuses a build older than a source, naming the source and what to run', () => {
  file('src/planner/make-plan.ts', 3_000);
  file('src/errors.ts', 1_000);
  file('dist/build-done', 2_000);
  expect(staleBuild(root)).toBe(
    'dist/ is older than the sources: src/planner/make-plan.ts changed after the last build. Run `npm run build`, then the tests again (`npm test` builds first).',
  );
});

it('refuses a missing build (or one stopped before its last step)', () => {
  file('src/errors.ts', 1_000);
  expect(staleBuild(root)).toMatch(/^dist\/ is missing or incomplete \(no dist\/build-done\): run `npm run build`/);
});
