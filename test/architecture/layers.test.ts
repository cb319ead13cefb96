/**
 * The layer rules of docs/architecture.md are enforced by `npm run lint`:
 * an upward import is a lint error, and src/ has no import cycle. The
 * fixtures are linted as text under a path inside src/, so no broken file is
 * ever left in the tree.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without type declarations
import { cycles, findCycles } from '../../scripts/import-cycles.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function layerErrors(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${root}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layers', () => {
  it('refuses an upward import: src/state/ importing src/planner/', async () => {
    const errors = await layerErrors('src/state/upward-fixture.ts', "export { makePlan } from '../planner/index.js';\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^'..\/planner\/index.js' import is restricted .*src\/state\/ may import only errors\.ts, paint\.ts, api\/, config\/, plan-model\/, crypto\/ /);
  });

  it('refuses the planner importing the applier, the CLI or the renderer', async () => {
    for (const folder of ['applier', 'cli', 'render']) {
      expect(await layerErrors('src/planner/upward-fixture.ts', `export * from '../${folder}/index.js';\n`)).toHaveLength(1);
    }
  });

  it('refuses the ground floor importing anything of ours', async () => {
    expect(await layerErrors('src/errors.ts', "export * from './plan-model/index.js';\n")).toHaveLength(1);
  });

  it('accepts a downward import: src/planner/ importing src/providers/ and the plan model', async () => {
    const text = "export { kindOrder } from '../providers/index.js';\nexport type { Plan } from '../plan-model/index.js';\nexport { AbortError } from '../errors.js';\n";
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

  it('src/ has no import cycle between folders or files (besides the known ones being removed)', () => {
    expect(findCycles(root)).toEqual({ files: [], folders: [] });
  });
});
