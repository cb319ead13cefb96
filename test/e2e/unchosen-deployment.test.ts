// A configuration with `deployments:` run without --deployment (issue 47 §5's family): `run`, `read`, `output` and
// `reader-manifest` (and `plan`) say which deployment to choose, with a hint that runs as printed: the command's own
// flags and what follows `--` kept, the new flag before `--`. An empty `deployments: {}` is said in words, not a crash
// ("a bug: Cannot read properties of undefined (reading 'replace')" in suggestedCommand).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { extraAccount } from '../../src/emulator/index.js';
import { world, type World } from './helpers.js';

let w: World;
let empty: string;
beforeAll(async () => {
  w = await world({ accounts: 2 });
  w.config(
    `version: 1\ndeployments:\n  dev: { account: ${extraAccount(1).id} }\n  prod: { account: ${extraAccount(2).id} }\nprojects:\n  app: { description: app }\n`,
  );
  empty = join(w.temp, 'empty');
  mkdirSync(empty);
  writeFileSync(join(empty, 'main.yaml'), 'version: 1\ndeployments: {}\nprojects:\n  app: { description: app }\n');
});
afterAll(() => w.close());

/** The words of a hint as a shell splits them (single quotes as suggestedCommand writes them). */
const shellWords = (line: string): string[] =>
  [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!));

const commands = (dir: string): string[][] => [
  ['run', dir, '--env', 'A=record.app/x', '--', 'node', '-e', 'process.exit(7)'],
  ['read', 'record.app/x', dir],
  ['output', dir],
  ['reader-manifest', 'deployer', dir, '--out', join(w.temp, 'm.json')],
  ['plan', dir],
];

it('an empty `deployments: {}` is a clear error with exit 1, for every command', async () => {
  for (const args of commands(empty)) {
    const run = await w.cli(args, { CPLANE_ACCOUNT: '' });
    expect(run.stderr, args[0]).toContain('has `deployments:` with no deployment in it');
    expect(run.stderr, args[0]).not.toContain('a bug');
    expect(run.code, args[0]).toBe(1);
  }
});

it('the hint to choose a deployment keeps the command as typed, and runs as printed', async () => {
  for (const args of commands('infra')) {
    const run = await w.cli(args, { CPLANE_ACCOUNT: '' });
    expect(run.code, args[0]).toBe(1);
    expect(run.stderr, args[0]).toContain('has deployments (dev, prod)');
    const hint = /`cplane ([^`]*--deployment dev[^`]*)`/.exec(run.stderr)?.[1];
    expect(hint, run.stderr).toBeDefined();
    const words = shellWords(hint!);
    // Every word typed is in the hint, in order, with --deployment dev before any `--`.
    expect(words.filter((word) => word !== '--deployment' && word !== 'dev')).toEqual(args);
    if (args.includes('--')) expect(words.indexOf('--deployment')).toBeLessThan(words.indexOf('--'));
    const again = await w.cli(words, { CPLANE_ACCOUNT: '' });
    expect(again.stderr, hint).not.toContain('has deployments (dev, prod)');
    expect(again.stderr, hint).not.toMatch(/a bug|Unexpected arguments|unknown flag/);
  }
});
