/**
 * `cplane validate` as a user runs it: no token and no network, exit codes, and the three output formats. The
 * diagnostics are the subject, not the process: the CLI's own entry runs in-process (test/helpers/in-process-cli.ts),
 * and the first test runs the built binary in a subprocess.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BASE, writeConfig } from './helpers.js';
import { builtCli } from '../helpers/built-cli.js';
import { runInProcess } from '../helpers/in-process-cli.js';

/** The built binary, as a user starts it. */
function spawned(args: string[]) {
  const result = spawnSync(process.execPath, [builtCli(), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A project's keys, in the schema's order (a kind declared inside a project adds its own). */
const projectKeys = Object.keys(
  (JSON.parse(readFileSync('schema/config.schema.json', 'utf8')) as { $defs: { project: { properties: object } } }).$defs.project
    .properties,
);

function cplane(args: string[], cwd = process.cwd(), env: Record<string, string> = {}) {
  return runInProcess(args, { PATH: process.env.PATH ?? '', ...env }, cwd);
}

test('a valid folder: exit 0 and a one-line summary', () => {
  const run = spawned(['validate', 'examples/quickstart', '--var', 'account=00000000-0000-4000-8000-000000000001']);
  expect(run).toEqual({ code: 0, stdout: 'Configuration is valid: 8 resources in 1 file.\n', stderr: '' });
});

test('without variable values: valid, checked for type only, and says which variables had none', async () => {
  expect(await cplane(['validate', 'examples/quickstart'])).toEqual({
    code: 0,
    stdout: 'Configuration is valid: 8 resources in 1 file (without a value for "account": checked for type only).\n',
    stderr: '',
  });
  const json = JSON.parse((await cplane(['validate', 'examples/multi-env', '--json'])).stdout) as {
    valid: boolean;
    unsetVariables: string[];
  };
  expect(json).toMatchObject({ valid: true, unsetVariables: ['env'] });
});

test('variables from a var file and from CPLANE_VAR_', async () => {
  expect((await cplane(['validate', 'examples/multi-env', '--var-file', 'examples/multi-env/vars/staging.yaml'])).code).toBe(0);
  expect((await cplane(['validate', 'examples/multi-env'], process.cwd(), { CPLANE_VAR_account: 'a', CPLANE_VAR_env: 'dev' })).code).toBe(
    0,
  );
});

test('an invalid folder: exit 1, every error on stderr without colour when not a terminal', async () => {
  const dir = writeConfig({ 'main.yaml': BASE.replace('description:', 'descripton:').replace('project: payments', 'project: paymnts') });
  const run = await cplane(['validate'], dir);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(
    [
      'main.yaml:4:5: error: Unknown key "descripton" in project "payments"; did you mean "description"?',
      '   4 |     descripton: Payment services',
      '     |     ^^^^^^^^^^',
      `  Valid keys: ${projectKeys.join(', ')}.`,
      '',
      '1 error found.',
      '',
    ].join('\n'),
  );
});

test('--json prints the diagnostics as data', async () => {
  const dir = writeConfig({ 'main.yaml': BASE.replace('rotationIntervalDays: 90', 'rotationIntervalDays: 0') });
  const run = await cplane(['validate', dir, '--json']);
  expect(run.code).toBe(1);
  const report = JSON.parse(run.stdout) as { valid: boolean; diagnostics: { code: string; range: unknown }[] };
  expect(report.valid).toBe(false);
  expect(report.diagnostics.map((d) => [d.code, d.range])).toEqual([['out_of_range', { file: `${dir}/main.yaml`, line: 7, col: 31 }]]);
});

test('--format github prints workflow annotations', async () => {
  const dir = writeConfig({ 'main.yaml': 'projects:\n  a: { active: yes-please }\n' });
  const run = await cplane(['validate', '--format', 'github'], dir);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe(
    '::error file=main.yaml,line=2,col=16,title=wrong_type::Wrong type for "active" in project "a": expected true or false, got a string\n',
  );
});

test('bad flags are explained', async () => {
  expect((await cplane(['validate', '--var', 'novalue'])).stderr).toBe(
    'Error: --var expects NAME=VALUE, got "novalue".\nExample: --var env=staging\n',
  );
  expect((await cplane(['validate', '--format', 'xml'])).stderr).toBe(
    'Error: Unknown --format "xml".\nUse --format github, or --json for machine-readable output.\n',
  );
});

test('a record value that a map variable without a value decides is checked for type only (it crashed: "a bug")', async () => {
  const dir = writeConfig({
    'main.yaml':
      'version: 1\nvariables:\n  source: { type: map }\nprojects:\n  core:\n    records:\n      key:\n        value: ${var.source}\n',
  });
  expect(await cplane(['validate'], dir)).toEqual({
    code: 0,
    stdout: 'Configuration is valid: 2 resources in 1 file (without a value for "source": checked for type only).\n',
    stderr: '',
  });
});
