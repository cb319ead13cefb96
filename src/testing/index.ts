/**
 * `cplane test` (docs/testing.md): a configuration's test files (tests/*.cptest.yaml) read and checked
 * (test-file.ts), each run against a fresh in-process emulator (run-file.ts), its CEL assertions over
 * what the run made (assertions.ts, facts.ts), and the results as text lines, JSON and JUnit XML (report.ts).
 */
export { findTestFiles, TEST_FILE_ENDING, TESTS_FOLDER } from './test-file.js';
export { runTestFile, DEFAULT_TEST_ACCOUNT, type FileResult, type RunResult } from './run-file.js';
export { testReportJson, testReportJunit, testReportLines, testSummaryLine, testTotals } from './report.js';
