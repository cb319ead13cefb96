// `--github` outside Actions (no RUNNER_TEMP) writes the comment's Markdown under the shared temporary folder:
// in a folder of its own made by mkdtemp (0700), never at a name known in advance that a planted link could take.
import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smallConfig, world, type World } from './helpers.js';

describe('--github: the Markdown file for the comment', () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });
  afterEach(() => w.close());

  it('is written in a new private folder of the temporary folder, for its owner only', async () => {
    w.config(smallConfig());
    const shared = join(w.temp, 'shared-tmp');
    mkdirSync(shared, { mode: 0o777 });
    const output = join(w.temp, 'github-output');
    const { code, stderr } = await w.cli(['plan', '--github', 'infra'], {
      TMPDIR: shared,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: join(w.temp, 'summary'),
    });
    expect(code, stderr).toBe(0);
    const file = /markdown_file<<(\S+)\n(.*)\n/.exec(readFileSync(output, 'utf8'))![2]!;
    const folder = dirname(file);
    expect(dirname(folder)).toBe(shared);
    expect(readdirSync(shared)).toEqual([folder.slice(shared.length + 1)]);
    expect(folder.slice(shared.length + 1)).toMatch(/^cplane-[A-Za-z0-9]{6}$/);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(lstatSync(file).isFile()).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('cplane plan');
  });
});
