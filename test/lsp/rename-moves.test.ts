// The moved blocks a rename adds, in-process on the index (src/lsp/): one per call for a module's resource, a grant
// moved with the directory user it names, a token under its gateway, the end of an existing `moved:` list (block
// or flow style), and what is refused.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NamesIndex } from '../../src/lsp/names-index.js';
import { RenameRefused, renameChanges } from '../../src/lsp/rename.js';
import { kindBlocks } from '../../src/providers/index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cplane-lsp-rename-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function indexOf(files: Record<string, string>): Promise<NamesIndex> {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const index = new NamesIndex(dir, kindBlocks, (path) => readFile(path, 'utf8').catch(() => undefined));
  await index.load();
  return index;
}

/** The rename of the `nth` place of `needle` in `file` to `to`: each change as `file:start-end newText`. */
async function renamed(index: NamesIndex, file: string, needle: string, to: string, nth = 0): Promise<string[]> {
  const text = await readFile(join(dir, file), 'utf8');
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  return renameChanges(index, kindBlocks, join(dir, file), at + 1, to).map(
    (c) => `${c.path.slice(dir.length + 1)}:${c.start} ${JSON.stringify(c.newText)}`,
  );
}

const module =
  'variables:\n  project: {}\ngateways:\n  team:\n    project: ${var.project}\n    defaultModel: m\n    credentials: [own]\ncredentials:\n  own: { provider: openai, secret: { env: K } }\n';

describe('rename: the moved blocks', () => {
  it("moves a module's resource once per call, in the file that calls the module", async () => {
    const main =
      'projects:\n  core: {}\nmodules:\n  a: { source: ./modules/team, inputs: { project: core } }\n  b: { source: ./modules/team, inputs: { project: core } }\n';
    const index = await indexOf({ 'main.yaml': main, 'modules/team/main.yaml': module });
    const changes = await renamed(index, 'modules/team/main.yaml', 'own', 'mine');
    expect(changes).toEqual([
      expect.stringMatching(/^modules\/team\/main\.yaml:\d+ "mine"$/),
      expect.stringMatching(/^modules\/team\/main\.yaml:\d+ "mine"$/),
      `main.yaml:${main.length} "\\nmoved:\\n  - from: module.a.credential.own\\n    to: module.a.credential.mine\\n  - from: module.b.credential.own\\n    to: module.b.credential.mine\\n"`,
    ]);
  });

  it("renames the caller's project in a module call's input too", async () => {
    const main = 'projects:\n  core: {}\nmodules:\n  a: { source: ./modules/team, inputs: { project: core } }\n';
    const index = await indexOf({ 'main.yaml': main, 'modules/team/main.yaml': module });
    expect(await renamed(index, 'main.yaml', 'core', 'base')).toEqual([
      `main.yaml:${main.indexOf('core')} "base"`,
      `main.yaml:${main.lastIndexOf('core')} "base"`,
      `main.yaml:${main.length} "\\nmoved:\\n  - from: project.core\\n    to: project.base\\n"`,
    ]);
  });

  it("moves the grants a directory user's name names, at the end of the moved list already there", async () => {
    const main = [
      'directory:',
      '  users:',
      '    dana: { id: 11111111-1111-4111-8111-111111111111, publicKey: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= }',
      'projects:',
      '  core:',
      '    records:',
      '      key:',
      '        value: { generate: { length: 32 } }',
      '        grants: { users: [dana] }',
      'moved:',
      '  - from: project.old',
      '    to: project.core',
      '# the end',
      '',
    ].join('\n');
    const index = await indexOf({ 'main.yaml': main });
    const end = main.indexOf('# the end');
    expect(await renamed(index, 'main.yaml', 'dana', 'dana-r')).toEqual([
      `main.yaml:${main.indexOf('dana')} "dana-r"`,
      `main.yaml:${main.lastIndexOf('dana')} "dana-r"`,
      `main.yaml:${end} "  - from: user_share.core/key/dana\\n    to: user_share.core/key/dana-r\\n"`,
    ]);
  });

  it('moves a token under its gateway, into a moved list written in flow style', async () => {
    const main =
      'gateways:\n  prod:\n    project: p\n    defaultModel: m\n    credentials: [c]\n    tokens:\n      ci: { scopes: [run] }\nmoved: [{ from: project.a, to: project.p }]\n';
    const index = await indexOf({ 'main.yaml': main });
    expect(await renamed(index, 'main.yaml', 'ci:', 'deploy')).toEqual([
      `main.yaml:${main.indexOf('ci:')} "deploy"`,
      `main.yaml:${main.lastIndexOf(']')} ", { from: gateway_token.prod/ci, to: gateway_token.prod/deploy }"`,
    ]);
  });

  it('renames a variable with no moved block, and refuses what cannot be renamed', async () => {
    const main = 'variables:\n  env: { default: dev }\nprojects:\n  p:\n    name: p-${var.env}\n    forEach: [a, b]\n';
    const index = await indexOf({ 'main.yaml': main });
    expect(await renamed(index, 'main.yaml', 'env', 'stage')).toEqual([
      `main.yaml:${main.indexOf('env')} "stage"`,
      `main.yaml:${main.lastIndexOf('env')} "stage"`,
    ]);
    await expect(renamed(index, 'main.yaml', 'env', '1bad')).rejects.toThrow(
      new RenameRefused("\"1bad\" is not a valid name: letters, digits and '_', starting with a letter or '_', at most 100 characters."),
    );
    await expect(renamed(index, 'main.yaml', 'p:', 'q')).rejects.toThrow('"p" has forEach');
  });
  it("moves every resource of a module when its call is renamed, and a module input's rename edits every caller", async () => {
    const main =
      'projects:\n  core: {}\nmodules:\n  a: { source: ./modules/team, inputs: { project: core } }\n  b: { source: ./modules/team, inputs: { project: core } }\n';
    const index = await indexOf({ 'main.yaml': main, 'modules/team/main.yaml': module });
    expect(await renamed(index, 'main.yaml', 'a:', 'squad')).toEqual([
      `main.yaml:${main.indexOf('a:')} "squad"`,
      `main.yaml:${main.length} "\\nmoved:\\n  - from: module.a.credential.own\\n    to: module.squad.credential.own\\n  - from: module.a.gateway.team\\n    to: module.squad.gateway.team\\n"`,
    ]);
    // The module's variable `project`: its declaration, its use, and the input key of both calls; no address changes.
    const inModule = await renamed(index, 'modules/team/main.yaml', 'project: {}', 'home');
    expect(inModule.map((c) => c.replace(/:\d+ /, ' ')).sort()).toEqual([
      'main.yaml "home"',
      'main.yaml "home"',
      'modules/team/main.yaml "home"',
      'modules/team/main.yaml "home"',
    ]);
  });

  it('refuses to rename the call of a module with a forEach entry, saying why', async () => {
    const main = 'projects:\n  core: {}\nmodules:\n  a: { source: ./modules/team, inputs: { project: core } }\n';
    const looped = module.replace('  team:\n', '  team:\n    forEach: [x, y]\n');
    const index = await indexOf({ 'main.yaml': main, 'modules/team/main.yaml': looped });
    await expect(renamed(index, 'main.yaml', 'a:', 'squad')).rejects.toThrow(
      'Module call "a" not renamed: its module\'s gateway.team has forEach',
    );
  });
});
