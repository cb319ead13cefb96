/**
 * `npm run lint` holds the code to what a newcomer reads in one pass (issue 49): Prettier's format, and no function
 * over 80 lines (blank lines and comments not counted). The fixtures are linted as text under a path inside src/, so
 * no broken file is ever left in the tree.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** A function of `lines` lines, its first and last included. */
const functionOf = (lines: number) => `export function long(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(lines - 4)}  return n;\n}\n`;

async function lengthErrors(text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${root}/src/planner/length-fixture.ts` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines-per-function').map((m) => m.message);
}

describe('lint', () => {
  it('refuses a function over 80 lines, and counts neither blank lines nor comments', async () => {
    expect(await lengthErrors(functionOf(80))).toEqual([]);
    expect(await lengthErrors(functionOf(81))).toEqual(["Function 'long' has too many lines (81). Maximum allowed is 80."]);
    const commented = functionOf(80).replace('  return n;', '  // why\n\n  /* and why */\n  return n;');
    expect(await lengthErrors(commented)).toEqual([]);
  });

  it('refuses an unformatted file: Prettier with the repository’s settings', async () => {
    const options = { ...(await prettier.resolveConfig(`${root}/src/planner/x.ts`)), filepath: `${root}/src/planner/x.ts` };
    expect(await prettier.check('export const a = { b: 1 };\n', options)).toBe(true);
    expect(await prettier.check('export const a = {b:1}\n', options)).toBe(false);
    expect(await prettier.check(`export const a = ['${'x'.repeat(150)}', 'y'];\n`, options)).toBe(false);
  });
});
