#!/usr/bin/env node
// Runs each test of the given files alone (`vitest run FILE -t PATTERN`, the pattern matching that test's full name
// and no other), and reports the ones that fail alone: a test that passes only after the tests before it in its
// file relies on what they did. The rule it checks is docs/performance.md's "Each test arranges its own world".
//
//   node scripts/tests-alone.mjs [--jobs N] [--include-first] FILE...
//
// The files' tests come from `vitest list --json`. The first test of a file is skipped unless --include-first: in
// the file's own run it already runs with nothing before it. A test that skips itself when run alone (a summary
// over an `it.each`) counts as skipped, not failed. Exit code 1 when a test failed alone (or when a pattern did
// not select exactly that one test), 0 otherwise. One vitest run per test, `--jobs` at a time (default 1: the
// point is to see tests fail for their order, not for the machine's load).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');

function parseArgs(argv) {
  const options = { jobs: 1, includeFirst: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--jobs') options.jobs = Number(argv[++i]);
    else if (arg === '--include-first') options.includeFirst = true;
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else options.files.push(arg);
  }
  if (options.files.length === 0 || !(options.jobs >= 1))
    throw new Error('usage: node scripts/tests-alone.mjs [--jobs N] [--include-first] FILE...');
  return options;
}

/** Runs vitest with `args`; resolves when the process and its pipes are closed. */
function runVitest(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitest, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** vitest's `-t` matches a test's names joined by spaces (its suites' and its own); `list` joins them with " > ". */
function exactPattern(listedName) {
  const escaped = listedName.split(' > ').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `^${escaped.join(' ')}$`;
}

async function listTests(files, scratch) {
  const out = join(scratch, 'list.json');
  const listed = await runVitest(['list', `--json=${out}`, ...files]);
  if (listed.code !== 0) throw new Error(`vitest list failed:\n${listed.output}`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

/** One test alone: 'passed', 'skipped', or 'failed' with what vitest said. */
async function runAlone(test, scratch, index) {
  const out = join(scratch, `run-${index}.json`);
  const run = await runVitest(['run', relative(root, test.file), '-t', exactPattern(test.name), '--reporter=json', `--outputFile=${out}`]);
  let report;
  try {
    report = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    return { outcome: 'failed', detail: run.output.slice(-4000) };
  }
  const results = report.testResults.flatMap((file) => file.assertionResults);
  const ran = results.filter((result) => result.status === 'passed' || result.status === 'failed');
  const failed = results.filter((result) => result.status === 'failed');
  const fileErrors = report.testResults.map((file) => file.message).filter(Boolean);
  if (failed.length > 0 || fileErrors.length > 0 || run.code !== 0) {
    return {
      outcome: 'failed',
      detail: [...failed.flatMap((result) => result.failureMessages), ...fileErrors].join('\n').slice(0, 4000) || run.output.slice(-4000),
    };
  }
  if (ran.length === 0) return { outcome: 'skipped' };
  if (ran.length > 1)
    return { outcome: 'failed', detail: `the pattern selected ${ran.length} tests: ${ran.map((result) => result.fullName).join(' | ')}` };
  return { outcome: 'passed' };
}

const options = parseArgs(process.argv.slice(2));
const scratch = mkdtempSync(join(tmpdir(), 'tests-alone-'));
try {
  const listed = await listTests(options.files, scratch);
  const seen = new Set();
  const tests = listed.filter((test) => {
    const first = !seen.has(test.file);
    seen.add(test.file);
    return options.includeFirst || !first;
  });
  console.log(`${tests.length} tests of ${seen.size} files, each alone, ${options.jobs} at a time`);
  const failures = [];
  let next = 0;
  const worker = async () => {
    while (next < tests.length) {
      const index = next++;
      const test = tests[index];
      const started = Date.now();
      const result = await runAlone(test, scratch, index);
      const where = `${relative(root, test.file)} > ${test.name}`;
      console.log(`${result.outcome.toUpperCase().padEnd(7)} ${where} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      if (result.outcome === 'failed') {
        failures.push(where);
        console.log(`        ${result.detail.split('\n').slice(0, 12).join('\n        ')}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.jobs }, worker));
  console.log(
    failures.length === 0
      ? 'Every test passed alone.'
      : `${failures.length} failed alone:\n${failures.map((where) => `  ${where}`).join('\n')}`,
  );
  process.exitCode = failures.length === 0 ? 0 : 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
