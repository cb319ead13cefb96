/**
 * Variable precedence in Terraform's order (defaults, then CPLANE_VAR_*, then
 * --var-file and --var in command-line order), typed values, and interpolation details.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { load, writeConfig } from './helpers.js';
import { loadConfiguration } from '../../src/providers/index.js';
import { runCli } from '../../src/cli/main.js';

const CONFIG =
  'variables:\n  env: { default: from-default }\n  days: { type: integer, default: 7 }\nprojects:\n  p:\n    description: "${var.env}"\n    records:\n      r: { rotationIntervalDays: "${var.days}" }\n';

async function describeWith(options: Parameters<typeof loadConfiguration>[1], varFiles: Record<string, string> = {}) {
  const dir = writeConfig({ 'main.yaml': CONFIG, ...varFiles });
  const result = await loadConfiguration('.', { env: {}, ...options, cwd: dir });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const [project, record] = result.desired!.resources;
  return {
    description: (project!.attributes as { description: string }).description,
    days: (record!.attributes as { rotationIntervalDays: number }).rotationIntervalDays,
  };
}

test("Terraform's order: default < CPLANE_VAR_ < --var-file and --var in command-line order", async () => {
  const files = { 'vars/one.yaml': 'env: from-file-1\n', 'vars/two.yaml': 'env: from-file-2\ndays: 9\n' };
  expect(await describeWith({})).toEqual({ description: 'from-default', days: 7 });
  expect(await describeWith({ env: { CPLANE_VAR_env: 'from-env' } })).toEqual({ description: 'from-env', days: 7 });
  expect(
    await describeWith({
      variables: [
        { name: 'env', value: 'from-var' },
        { name: 'days', value: '8' },
      ],
    }),
  ).toEqual({ description: 'from-var', days: 8 });
  // A var file after --var wins; a --var after a var file wins.
  expect(
    await describeWith({ variables: [{ name: 'env', value: 'from-var' }, { file: 'vars/one.yaml' }, { file: 'vars/two.yaml' }] }, files),
  ).toEqual({ description: 'from-file-2', days: 9 });
  expect(
    await describeWith({ variables: [{ file: 'vars/two.yaml' }, { name: 'days', value: '999' }, { file: 'vars/one.yaml' }] }, files),
  ).toEqual({ description: 'from-file-1', days: 999 });
  // The environment is the weakest source given by the user.
  expect(
    await describeWith(
      {
        variables: [{ file: 'vars/one.yaml' }, { name: 'days', value: '10' }],
        env: { CPLANE_VAR_env: 'from-env', CPLANE_VAR_days: '777' },
      },
      files,
    ),
  ).toEqual({ description: 'from-file-1', days: 10 });
});

test('the command line keeps the order of --var and --var-file: the last one wins', async () => {
  const dir = writeConfig({ 'main.yaml': CONFIG, 'vars/good.yaml': 'days: 5\n' });
  const validate = async (...args: string[]) => {
    let stderr = '';
    const sink = (write: (s: string) => void) =>
      ({
        write: (chunk: string) => {
          write(chunk);
          return true;
        },
      }) as unknown as NodeJS.WritableStream;
    const code = await runCli(['validate', dir, ...args], {
      env: {},
      cwd: dir,
      stdout: sink(() => {}),
      stderr: sink((s) => {
        stderr += s;
      }),
      stdin: process.stdin,
    });
    return { code, stderr };
  };
  expect((await validate('--var', 'days=ten', '--var-file', 'vars/good.yaml')).code).toBe(0);
  const lastIsVar = await validate('--var-file', 'vars/good.yaml', '--var', 'days=ten');
  expect(lastIsVar.code).toBe(1);
  expect(lastIsVar.stderr).toContain('Variable "days" must be an integer; --var days=... gives "ten"');
  expect((await validate('--var-file', 'vars/good.yaml', '--var', 'days=ten', '--var-file', 'vars/good.yaml')).code).toBe(0);
});

test('a value given for an undeclared variable is a warning with a suggestion', async () => {
  const result = await load({ 'main.yaml': CONFIG }, { variables: [{ name: 'evn', value: 'x' }] });
  expect(result.desired).toBeDefined();
  expect(result.diagnostics).toEqual([
    {
      severity: 'warning',
      code: 'undeclared_variable',
      summary: 'Variable "evn" given by --var evn=... is not declared; did you mean "env"?',
    },
  ]);
});

test('interpolation splices text, keeps a whole ${var.x} typed, and $${ is a literal', async () => {
  const { desired } = await load(
    {
      'main.yaml':
        'variables:\n  n: { default: 3 }\nprojects:\n  p:\n    name: "a-${var.n}-${env.HOME_X}"\n    description: "costs $${price}"\n',
    },
    { env: { HOME_X: 'h' } },
  );
  expect(desired!.resources[0]!.attributes).toMatchObject({ name: 'a-3-h', description: 'costs ${price}' });
});

test('a malformed interpolation is an error', async () => {
  const { diagnostics } = await load({ 'main.yaml': 'projects:\n  p: { description: "${foo}" }\n' });
  expect(diagnostics.map((d) => d.summary)).toEqual([
    'Invalid interpolation "${foo}": write ${var.NAME}, ${env.NAME}, or inside forEach ${each.key} or ${each.value}',
  ]);
});

test('a variable file that is not a map', async () => {
  const dir = writeConfig({ 'main.yaml': CONFIG });
  writeFileSync(join(dir, 'vars.txt'), '- a\n- b\n');
  const { diagnostics } = await loadConfiguration('.', { cwd: dir, env: {}, variables: [{ file: 'vars.txt' }] });
  expect(diagnostics.map((d) => d.summary)).toEqual(['Variable file vars.txt must be a map of variable names to values']);
});

test('a missing variable file', async () => {
  const dir = writeConfig({ 'main.yaml': CONFIG });
  const { diagnostics } = await loadConfiguration('.', { cwd: dir, env: {}, variables: [{ file: 'nope.yaml' }] });
  expect(diagnostics.map((d) => d.summary)).toEqual(['Cannot read variable file nope.yaml: ENOENT']);
});

test('without allowUnsetVariables, a variable with no value is an error at its declaration', async () => {
  const { desired, diagnostics } = await load({ 'main.yaml': 'variables:\n  account: {}\naccount: ${var.account}\n' });
  expect(desired).toBeUndefined();
  expect(diagnostics.map((d) => [d.code, d.summary])).toEqual([['variable_unset', 'Variable "account" is required but has no value']]);
});

test('with allowUnsetVariables (validate), a field that uses an unset variable is not checked beyond its type', async () => {
  const config = [
    'variables:',
    '  account: {}',
    '  days: { type: integer }',
    '  env: {}',
    'account: ${var.account}',
    'projects:',
    '  p:',
    '    name: "p-${var.env}"',
    '    records:',
    '      r: { rotationIntervalDays: "${var.days}", secretDueAt: "${var.env}" }',
  ].join('\n');
  const result = await load({ 'main.yaml': config }, { allowUnsetVariables: true });
  expect(result.diagnostics).toEqual([]);
  expect(result.unsetVariables).toEqual(['account', 'days', 'env']);
  expect(result.desired!.resources.map((r) => r.address)).toEqual(['project.p', 'record.p/r']);
});

test('with allowUnsetVariables, a declared type the field does not take is still an error, and so is text in a number', async () => {
  const config = [
    'variables:',
    '  label: { type: string }',
    '  days: { type: integer }',
    'projects:',
    '  p:',
    '    records:',
    '      a: { rotationIntervalDays: "${var.label}" }',
    '      b: { rotationIntervalDays: "${var.days}0" }',
  ].join('\n');
  const { desired, diagnostics } = await load({ 'main.yaml': config }, { allowUnsetVariables: true });
  expect(desired).toBeUndefined();
  expect(diagnostics.map((d) => [d.code, d.summary])).toEqual([
    [
      'wrong_type',
      'Wrong type for "rotationIntervalDays" in record "p/a": expected an integer or null, but variable "label" is declared as a string',
    ],
    ['wrong_type', 'Wrong type for "rotationIntervalDays" in record "p/b": expected an integer or null, got a string'],
  ]);
});
