/**
 * The layer rules of docs/architecture.md are enforced by `npm run lint`:
 * an upward import (static or `import()`) is a lint error, every folder of
 * src/ has its place in the table, and src/ has no import cycle. The
 * fixtures are linted as text under a path inside src/, so no broken file is
 * ever left in the tree.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { cycles, findCycles, importSpecifiers } from '../../scripts/import-cycles.mjs';
// @ts-expect-error: a plain ESM script without type declarations
import { layers as layerTable } from '../../eslint.config.js';

/** Folder -> the folders it may import: the layer table of eslint.config.js. */
const layers = layerTable as Record<string, string[]>;

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function layerErrors(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${root}/${file}` });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

describe('layers', () => {
  it('refuses an upward import: src/state/ importing src/planner/', async () => {
    const errors = await layerErrors('src/state/upward-fixture.ts', "export { makePlan } from '../planner/index.js';\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^'..\/planner\/index.js' import is restricted .*src\/state\/ may import only errors\.ts, paint\.ts, api\/, config\/, plan-model\/, crypto\/ /,
    );
  });

  it('refuses the planner importing the applier, the CLI or the renderer', async () => {
    for (const folder of ['applier', 'cli', 'render']) {
      expect(await layerErrors('src/planner/upward-fixture.ts', `export * from '../${folder}/index.js';\n`)).toHaveLength(1);
    }
  });

  it('refuses the ground floor importing anything of ours', async () => {
    expect(await layerErrors('src/errors.ts', "export * from './plan-model/index.js';\n")).toHaveLength(1);
  });

  it('refuses an upward import(): the lazy import of a higher layer is an import all the same', async () => {
    const errors = await layerErrors(
      'src/faces/upward-fixture.ts',
      "export const load = async () => (await import('../cli/commands/plan.js')).planCommand;\n",
    );
    expect(errors).toEqual([
      expect.stringMatching(/^import\(\): src\/faces\/ may import only errors\.ts, paint\.ts, api\/, config\/, session\/ /),
    ]);
    expect(await layerErrors('src/state/upward-fixture.ts', "export const load = () => import('../planner/index.js');\n")).toHaveLength(1);
  });

  it('accepts a downward import(): the CLI loading a command module or a face', async () => {
    expect(
      await layerErrors('src/cli/commands/downward-fixture.ts', "export const load = () => import('../../faces/mcp-server.js');\n"),
    ).toEqual([]);
  });

  it('every folder of src/ is in the layer table (a new folder must be placed in it)', () => {
    const folders = readdirSync(`${root}/src`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !(folder in layers))).toEqual([]);
    // Every folder a layer may import is itself in the table.
    expect(
      Object.values(layers)
        .flat()
        .filter((folder) => !(folder in layers)),
    ).toEqual([]);
  });

  it('accepts a downward import: src/planner/ importing src/providers/ and the plan model', async () => {
    const text =
      "export { kindOrder } from '../providers/index.js';\nexport type { Plan } from '../plan-model/index.js';\nexport { AbortError } from '../errors.js';\n";
    expect(await layerErrors('src/planner/downward-fixture.ts', text)).toEqual([]);
  });
});

describe('import cycles', () => {
  it('finds a cycle between files and says which', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('reads dynamic imports as well as static ones', () => {
    const text = [
      "import { a } from './a.js';",
      "export type { B } from '../b/index.js';",
      "const load = async () => (await import('./c.js')).c;",
      "const tool = () => import( '../d/e.js' );",
      "const pkg = () => import('ink');",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual(['./a.js', '../b/index.js', './c.js', '../d/e.js']);
  });

  it('src/ has no import cycle between folders or files, dynamic imports included', () => {
    expect(findCycles(root)).toEqual({ files: [], folders: [] });
  });
});
