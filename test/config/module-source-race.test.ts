/**
 * A module's source is checked (resolved, inside the configuration folder) and then read: the read must be of
 * the folder that was checked. A link flipped between the check and the read (deterministically, right after
 * the check's realpath returns; and for real, by another process flipping it in a loop) never makes a load
 * read a module from outside the configuration folder: the load reads what was checked, or refuses with
 * `module_source_changed` / `module_source_outside`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test, vi } from 'vitest';
import { loadConfiguration } from '../../src/providers/index.js';

/**
 * What swaps the links, run once right after the loader's realpath (the check) or readdir (the listing) of the
 * module's folder returns: node:fs/promises is wrapped so the swap lands exactly between check and use.
 */
const after: { realpath?: () => void; readdir?: () => void } = {};
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof FsPromises>();
  const once = (name: 'realpath' | 'readdir', path: unknown) => {
    const swap = after[name];
    if (!swap || !/modules[\\/](team|inside)$/.test(String(path))) return;
    delete after[name];
    swap();
  };
  const realpath = (async (path: string, ...rest: []) => {
    const result = await fs.realpath(path, ...rest);
    once('realpath', path);
    return result;
  }) as typeof fs.realpath;
  const readdir = (async (path: string, ...rest: []) => {
    const result = await fs.readdir(path, ...rest);
    once('readdir', path);
    return result;
  }) as typeof fs.readdir;
  return { ...fs, realpath, readdir, default: { ...fs, realpath, readdir } };
});
afterEach(() => {
  delete after.realpath;
  delete after.readdir;
});

const temp = realpathSync(mkdtempSync(join(tmpdir(), 'cplane-module-race-')));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

let cases = 0;
/**
 * A configuration folder whose module source `./modules/team` is a link to `modules/inside` (a project
 * `inside`), and a folder outside it with a module of a project `evil`.
 */
function arrange() {
  const base = join(temp, `case-${cases++}`);
  const root = join(base, 'infra');
  const inside = join(root, 'modules', 'inside');
  const outside = join(base, 'outside');
  mkdirSync(inside, { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'main.yaml'), 'version: 1\nmodules:\n  team: { source: ./modules/team }\n');
  writeFileSync(join(inside, 'team.yaml'), 'projects:\n  inside: { description: Inside }\n');
  writeFileSync(join(outside, 'team.yaml'), 'projects:\n  evil: { description: Outside }\n');
  const link = join(root, 'modules', 'team');
  symlinkSync(inside, link);
  return { root, inside, outside, link };
}

const load = (root: string) => loadConfiguration('.', { env: {}, cwd: root });
const addresses = (loaded: Awaited<ReturnType<typeof load>>) => loaded.desired?.resources.map((r) => r.address) ?? [];

test('a link that leads outside the configuration folder is refused as outside', async () => {
  const { root, outside, link } = arrange();
  unlinkSync(link);
  symlinkSync(outside, link);
  const loaded = await load(root);
  expect(loaded.desired).toBeUndefined();
  expect(loaded.diagnostics.map((d) => [d.code, d.summary])).toEqual([
    ['module_source_outside', 'module.team: source "./modules/team" is outside the configuration folder'],
  ]);
});

test('a link flipped to a folder outside right after the check: the folder checked is read, not the outside one', async () => {
  const { root, outside, link } = arrange();
  after.realpath = () => {
    unlinkSync(link);
    symlinkSync(outside, link);
  };
  const loaded = await load(root);
  expect(after.realpath).toBeUndefined();
  expect(loaded.diagnostics).toEqual([]);
  expect(addresses(loaded)).toEqual(['module.team.project.inside']);
  expect(loaded.desired?.files).toEqual(['main.yaml', 'modules/inside/team.yaml']);
});

test('the checked folder itself replaced by a link outside after the check: refused as changed, nothing of it read', async () => {
  const { root, inside, outside } = arrange();
  after.realpath = () => {
    renameSync(inside, `${inside}.old`);
    symlinkSync(outside, inside);
  };
  const loaded = await load(root);
  expect(loaded.desired).toBeUndefined();
  expect(loaded.diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
    [
      'module_source_changed',
      'module.team: source folder "./modules/team" changed while it was read',
      { file: 'main.yaml', line: 3, col: 19 },
    ],
  ]);
});

test('a module file swapped for a link after the listing is not followed', async () => {
  const { root, inside, outside } = arrange();
  // A link among the files is never listed; here the file becomes a link once the folder is listed.
  after.readdir = () => {
    unlinkSync(join(inside, 'team.yaml'));
    symlinkSync(join(outside, 'team.yaml'), join(inside, 'team.yaml'));
  };
  const loaded = await load(root);
  expect(after.readdir).toBeUndefined();
  expect(loaded.desired).toBeUndefined();
  expect(loaded.diagnostics.map((d) => [d.code, d.summary])).toEqual([['file_unreadable', 'Cannot read modules/team/team.yaml: ELOOP']]);
});

test('another process flipping the link between inside and outside while 40 loads run: none reads the outside module', async () => {
  const { root, inside, outside, link } = arrange();
  // Each flip replaces the link in one rename, so the link always exists and points at one of the two folders.
  // It says when it has begun (a synchronous write: its loop never yields), so no load runs before the race does.
  const flipper = spawn(
    process.execPath,
    [
      '-e',
      `
    const { symlinkSync, renameSync, writeSync } = require('node:fs');
    const [link, a, b] = process.argv.slice(1);
    for (let i = 0; ; i++) { symlinkSync(i % 2 ? a : b, link + '.next'); renameSync(link + '.next', link); if (i === 1) writeSync(1, 'flipping\\n'); }
  `,
      link,
      inside,
      outside,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const outcomes = { inside: 0, evil: 0, refused: 0 };
  try {
    await once(flipper.stdout, 'data');
    for (let run = 0; run < 40; run++) {
      const loaded = await load(root);
      const found = addresses(loaded);
      if (found.includes('module.team.project.evil')) outcomes.evil++;
      else if (found.includes('module.team.project.inside')) outcomes.inside++;
      else {
        outcomes.refused++;
        expect(loaded.diagnostics.map((d) => d.code)).toEqual([expect.stringMatching(/^module_source_(outside|changed)$/)]);
      }
    }
  } finally {
    flipper.kill();
  }
  expect(outcomes.evil).toBe(0);
  expect(outcomes.inside + outcomes.refused).toBe(40);
});
