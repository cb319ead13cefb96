// A name that an entry leaves out and its field's default supplies is checked like a written one: what the
// resource needs (`dependsOn`) is made from its attributes, so the check that the named resource or directory
// entry exists reads them too. No kind of the registry defaults a reference today; a kind added by the recipe
// may (a `group` that defaults to the local name), so the test hands the loader's cross-file stage a kind of its own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { buildDesired } from '../../src/config/build-desired.js';
import type { Diagnostic } from '../../src/config/types.js';
import type { KindBlock } from '../../src/config/blocks/kind-block.js';
import type { ConfigFile } from '../../src/config/files/config-file.js';
import { readSourceFile } from '../../src/config/files/source-file.js';
import { collectDirectory } from '../../src/config/blocks/directory.js';
import { kindBlocks } from '../../src/providers/index.js';

const dir = mkdtempSync(join(tmpdir(), 'cplane-default-references-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A top-level kind whose `project` and `group` default to `main` and `platform` when the entry leaves them out. */
const widget: KindBlock = {
  kind: 'widget',
  key: 'widgets',
  noun: 'widget',
  schema: {},
  references: [
    { attribute: 'project', kind: 'project' },
    { attribute: 'group', directory: 'groups' },
  ],
  attributes: (entry) => ({ project: entry.project ?? 'main', group: entry.group ?? 'platform' }),
};

async function build(yaml: string): Promise<{ diagnostics: Diagnostic[]; dependsOn: string[] }> {
  const path = join(dir, 'main.yaml');
  writeFileSync(path, yaml);
  const diagnostics: Diagnostic[] = [];
  const file = (await readSourceFile(path, 'main.yaml', diagnostics))!;
  const config = file.value as ConfigFile;
  const resources = buildDesired(
    [{ file, config }],
    [...kindBlocks, widget],
    diagnostics,
    collectDirectory([{ file, config }], diagnostics),
  );
  return { diagnostics, dependsOn: resources.find((r) => r.address === 'widget.w')?.dependsOn ?? [] };
}

it('reports a defaulted project and group that are not declared, at the entry, saying the value is the default', async () => {
  const { diagnostics, dependsOn } = await build('version: 1\nprojects:\n  billing: {}\nwidgets:\n  w: {}\n');
  expect(dependsOn).toEqual(['project.main']);
  expect(diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
    ['unknown_reference', 'Unknown project "main" in widget "w" (the default of project)', { file: 'main.yaml', line: 5, col: 3 }],
    [
      'unknown_directory_name',
      'Unknown group "platform": it is not declared in directory.groups (the default of group)',
      { file: 'main.yaml', line: 5, col: 3 },
    ],
  ]);
});

it('is satisfied by a declared project and group, and still checks a written name at its own place', async () => {
  const declared =
    'version: 1\ndirectory:\n  groups:\n    platform: { id: 00000000-0000-4000-8000-000000000001, publicKey: ' +
    'A'.repeat(43) +
    '= }\nprojects:\n  main: {}\n';
  expect((await build(`${declared}widgets:\n  w: {}\n`)).diagnostics).toEqual([]);
  const written = await build(`${declared}widgets:\n  w: { project: mian }\n`);
  expect(written.diagnostics.map((d) => [d.code, d.summary, d.range?.line, d.range?.col])).toEqual([
    ['unknown_reference', 'Unknown project "mian" in widget "w"; did you mean "main"?', 8, 17],
  ]);
});
