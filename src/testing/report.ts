/**
 * The results of `cplane test` shown three ways: lines for people (one per run, what a failed assertion
 * saw under it, then `N passed, N failed`), JSON for machines, and JUnit XML for CI systems. A test file
 * that is not valid counts as one failed test. Names and messages come from the test files and the API:
 * each is escaped for the place it is written (text/escape-for.ts, text/safe-text.ts).
 */
import { formatDiagnostic } from '../config/index.js';
import { painter } from '../paint.js';
import { escapeControl, safeLines, safeText } from '../text/safe-text.js';
import { xmlAttribute, xmlText } from '../text/escape-for.js';
import type { FileResult, RunResult } from './run-file.js';

export interface TestTotals {
  passed: number;
  failed: number;
}

export function testTotals(files: readonly FileResult[]): TestTotals {
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    if (!file.valid) failed++;
    passed += file.runs.filter((run) => run.passed).length;
    failed += file.runs.filter((run) => !run.passed).length;
  }
  return { passed, failed };
}

/** What a failed run says: its error, then each failed assertion with what it saw. */
function failureLines(run: RunResult): string[] {
  return [
    ...(run.error !== undefined ? [safeLines(run.error)] : []),
    ...run.assertions.filter((a) => !a.passed).map((a) => `${safeText(a.expression)}: ${safeText(a.message ?? 'failed')}`),
  ];
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** One line per run of these files (a file's diagnostics instead when it is not valid), for people. */
export function testReportLines(files: readonly FileResult[], options: { color: boolean }): string {
  const paint = painter(options.color);
  const lines: string[] = [];
  for (const file of files) {
    const where = escapeControl(file.file);
    if (!file.valid) {
      lines.push(...file.diagnostics.map((d) => formatDiagnostic(d, { color: options.color })));
      const errors = file.diagnostics.filter((d) => d.severity === 'error').length;
      lines.push(
        `${paint('error', 'FAIL')} ${where}: the test file is not valid (${errors} error${errors === 1 ? '' : 's'}); none of its runs ran`,
      );
      continue;
    }
    for (const run of file.runs) {
      const label = run.passed ? paint('add', 'PASS') : paint('error', 'FAIL');
      // A run that failed before its assertions has none to count.
      const count =
        run.assertions.length > 0 || run.error === undefined
          ? `, ${run.assertions.length} assertion${run.assertions.length === 1 ? '' : 's'}`
          : '';
      lines.push(`${label} ${where}: ${safeText(run.name)} (${run.command}${count}) ${paint('dim', `${seconds(run.durationMs)}s`)}`);
      for (const failure of failureLines(run)) lines.push(...failure.split('\n').map((l) => `    ${l}`));
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/** The last line: `N passed, N failed`. */
export function testSummaryLine(files: readonly FileResult[]): string {
  const { passed, failed } = testTotals(files);
  return `${passed} passed, ${failed} failed\n`;
}

export function testReportJson(files: readonly FileResult[]): string {
  const totals = testTotals(files);
  return `${JSON.stringify(
    {
      ...totals,
      files: files.map((file) => ({
        file: file.file,
        valid: file.valid,
        diagnostics: file.diagnostics,
        // Redacted as the lines are: an error may quote a value read from a secret source.
        runs: file.runs.map((run) => ({
          ...run,
          assertions: run.assertions.map((a) => ({ ...a, ...(a.message !== undefined ? { message: safeText(a.message) } : {}) })),
          ...(run.error !== undefined ? { error: safeLines(run.error) } : {}),
          durationMs: Math.round(run.durationMs),
        })),
      })),
    },
    null,
    2,
  )}\n`;
}

/**
 * JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters): one `<testsuite>` per test
 * file, one `<testcase>` per run with a `<failure>` when it failed; a test file that is not valid is one
 * test case that failed, its diagnostics in the failure.
 */
export function testReportJunit(files: readonly FileResult[]): string {
  const totals = testTotals(files);
  const time = files.reduce((sum, f) => sum + f.durationMs, 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cplane test" tests="${totals.passed + totals.failed}" failures="${totals.failed}" errors="0" time="${seconds(time)}">`,
  ];
  for (const file of files) {
    const cases = file.valid
      ? file.runs.map((run) => ({ name: run.name, time: run.durationMs, failure: run.passed ? undefined : failureLines(run) }))
      : [{ name: 'the test file is valid', time: 0, failure: file.diagnostics.map((d) => formatDiagnostic(d, { color: false })) }];
    const failures = cases.filter((c) => c.failure).length;
    out.push(
      `  <testsuite name="${xmlAttribute({ name: file.file })}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds(file.durationMs)}">`,
    );
    for (const c of cases) {
      const open = `    <testcase name="${xmlAttribute(c.name)}" classname="${xmlAttribute({ name: file.file })}" time="${seconds(c.time)}"`;
      if (!c.failure) {
        out.push(`${open}/>`);
        continue;
      }
      out.push(
        `${open}>`,
        `      <failure message="${xmlAttribute(c.failure[0]?.split('\n')[0] ?? 'failed')}" type="${file.valid ? 'assertion' : 'invalid_test_file'}">${xmlText(c.failure.join('\n'))}</failure>`,
        '    </testcase>',
      );
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
