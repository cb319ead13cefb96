/**
 * `cplane test`'s files: finding them (`tests/*.cptest.yaml` of the configuration folder, which loadConfig
 * never reads, since it reads no subfolder) and reading one as the configuration's files are read (size,
 * UTF-8, alias and depth bounds, positions), checked against schema/test.schema.json with the same error
 * words, and its assertions compiled: every problem is a diagnostic at its file:line:col, found before any run.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import validateTestFile from '../generated/test-schema.js';
import {
  checkPathInside,
  diagnosticAt,
  pathBounds,
  PATH_HINT,
  positionIn,
  readSourceFile,
  refusalWords,
  reportSchemaErrors,
  type Diagnostic,
  type SourceFile,
} from '../config/index.js';
import { AbortError } from '../errors.js';
import { compileAssertion, type Assertion } from './assertions.js';

/** The folder of a configuration that holds its test files, and their ending. */
export const TESTS_FOLDER = 'tests';
export const TEST_FILE_ENDING = '.cptest.yaml';

type Values = Record<string, unknown>;

interface RunText {
  name?: string;
  command: 'plan' | 'apply';
  variables?: Values;
  env?: Record<string, string>;
  expect?: string[];
}

interface TestFileText {
  account?: string;
  env?: Record<string, string>;
  variables?: Values;
  runs: RunText[];
}

export interface TestRun {
  name: string;
  command: 'plan' | 'apply';
  /** The file's variables with the run's over them. */
  variables: Values;
  /** The file's environment with the run's over it: all a run's configuration and secret sources see. */
  env: Record<string, string>;
  assertions: Assertion[];
}

export interface TestFile {
  /** As shown: relative to the working folder. */
  display: string;
  account?: string;
  runs: TestRun[];
}

export type ReadTestFile = { file: TestFile; diagnostics: Diagnostic[] } | { file: undefined; diagnostics: Diagnostic[] };

/**
 * The test files of `configDir`, sorted by name; none when it has no tests/ folder. A tests/ folder that leads
 * outside the configuration's bounds (a link) is refused: its files would be read and quoted in diagnostics.
 */
export async function findTestFiles(configDir: string): Promise<string[]> {
  const folder = join(configDir, TESTS_FOLDER);
  const bounds = await pathBounds(configDir);
  const checked = await checkPathInside(folder, bounds);
  if ('refused' in checked)
    throw new AbortError(`The test folder ${folder} ${refusalWords(checked.refused, bounds)}: no test file was read.`, PATH_HINT);
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
    throw error;
  });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(TEST_FILE_ENDING))
    .map((e) => join(folder, e.name))
    .sort();
}

/** One test file, read and checked; `file` is undefined when any diagnostic is an error. */
export async function readTestFile(path: string, display: string): Promise<ReadTestFile> {
  const diagnostics: Diagnostic[] = [];
  // Never through a link: the listing keeps only plain files, and one swapped for a link since is refused (ELOOP).
  const source = await readSourceFile(path, display, diagnostics, { noFollow: true }).catch((error: NodeJS.ErrnoException) => {
    diagnostics.push({ severity: 'error', code: 'file_unreadable', summary: `Cannot read ${display}: ${error.code ?? String(error)}` });
    return undefined;
  });
  if (!source) return { file: undefined, diagnostics };
  if (!validateTestFile(source.value)) {
    reportSchemaErrors(source, validateTestFile.errors ?? [], diagnostics);
    return { file: undefined, diagnostics };
  }
  const text = source.value as TestFileText;
  const runs = await Promise.all(text.runs.map((run, index) => testRun(source, text, run, index, diagnostics)));
  if (diagnostics.some((d) => d.severity === 'error')) return { file: undefined, diagnostics };
  return { file: { display, ...(text.account ? { account: text.account } : {}), runs }, diagnostics };
}

async function testRun(source: SourceFile, text: TestFileText, run: RunText, index: number, sink: Diagnostic[]): Promise<TestRun> {
  const assertions: Assertion[] = [];
  for (const [i, expression] of (run.expect ?? []).entries()) {
    const compiled = await compileAssertion(expression);
    if ('problem' in compiled) {
      const at = positionIn(source, run.expect, i)?.value[0] ?? 0;
      sink.push(
        diagnosticAt(source, at, {
          code: compiled.problem.code,
          summary: compiled.problem.summary,
          ...(compiled.problem.detail ? { detail: compiled.problem.detail } : {}),
        }),
      );
    } else assertions.push(compiled);
  }
  return {
    name: run.name ?? `run ${index + 1}`,
    command: run.command,
    variables: { ...text.variables, ...run.variables },
    env: { ...text.env, ...run.env },
    assertions,
  };
}
