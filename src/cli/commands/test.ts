/**
 * `cplane test [dir]`: runs the configuration's test files (tests/*.cptest.yaml), each against a fresh
 * emulator in this process, and reports one line per run and `N passed, N failed` (--json: one JSON
 * document; --junit-xml FILE: a JUnit report as well). Exit 0 when every run passed, 1 otherwise.
 */
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  findTestFiles,
  runTestFile,
  testReportJson,
  testReportJunit,
  testReportLines,
  testSummaryLine,
  testTotals,
  TEST_FILE_ENDING,
  TESTS_FOLDER,
  type FileResult,
} from '../../testing/index.js';
import type { CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { exitCodes } from '../exit-codes.js';

export const testCommand: CommandModule = {
  async run(ctx) {
    if (ctx.positionals.length > 1)
      throw new AbortError(`Unexpected arguments: ${ctx.positionals.slice(1).join(' ')}.`, 'Give at most one configuration folder.');
    const dir = resolve(ctx.cwd, ctx.positionals[0] ?? '.');
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new AbortError(
        `The configuration folder ${dir} does not exist.`,
        'Give an existing folder as [dir], or leave it out to use the current one.',
      );
    }
    const paths = await findTestFiles(dir);
    if (paths.length === 0) {
      throw new AbortError(
        `No test files in ${join(dir, TESTS_FOLDER)}: \`cplane test\` runs the files ${TESTS_FOLDER}/*${TEST_FILE_ENDING} of the configuration folder.`,
        'Write one: see docs/testing.md, or examples/quickstart/tests/.',
      );
    }
    const json = ctx.values.json === true;
    const color = ctx.stdout.isTTY === true && !ctx.env.NO_COLOR;
    const shown = (path: string) => {
      const rel = relative(ctx.cwd, path);
      return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
    };
    const results: FileResult[] = [];
    for (const path of paths) {
      const result = await runTestFile(path, shown(path), {
        configDir: dir,
        cwd: ctx.cwd,
        ...(ctx.deployment ? { deployment: ctx.deployment.name } : {}),
      });
      results.push(result);
      // Each file's lines as soon as it is done: a long suite shows progress.
      if (!json) ctx.stdout.write(testReportLines([result], { color }));
    }
    const junit = ctx.values['junit-xml'];
    if (typeof junit === 'string' && junit !== '') await writeFile(resolve(ctx.cwd, junit), testReportJunit(results));
    ctx.stdout.write(json ? testReportJson(results) : `\n${testSummaryLine(results)}`);
    return testTotals(results).failed > 0 ? exitCodes.error : exitCodes.ok;
  },
};
