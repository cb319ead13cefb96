/**
 * Variable precedence (defaults, then --var, then --var-file in order, then
 * CPLANE_VAR_*), typed values, and interpolation details.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { load, writeConfig } from './helpers.js';
import { loadConfig } from '../../src/config/index.js';

const CONFIG = 'variables:\n  env: { default: from-default }\n  days: { type: integer, default: 7 }\nprojects:\n  p:\n    description: "${var.env}"\n    records:\n      r: { rotationIntervalDays: "${var.days}" }\n';

async function describeWith(options: Parameters<typeof loadConfig>[1], varFiles: Record<string, string> = {}) {
  const dir = writeConfig({ 'main.yaml': CONFIG, ...varFiles });
  const result = await loadConfig('.', { env: {}, ...options, cwd: dir, varFiles: Object.keys(varFiles) });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const [project, record] = result.desired!.resources;
  return { description: (project!.attributes as { description: string }).description, days: (record!.attributes as { rotationIntervalDays: number }).rotationIntervalDays };
}

test('later sources win: default < --var < --var-file (in order) < CPLANE_VAR_', async () => {
  expect(await describeWith({})).toEqual({ description: 'from-default', days: 7 });
  expect(await describeWith({ vars: { env: 'from-var', days: '8' } })).toEqual({ description: 'from-var', days: 8 });
  expect(await describeWith({ vars: { env: 'from-var' } }, { 'vars/one.yaml': 'env: from-file-1\n', 'vars/two.yaml': 'env: from-file-2\ndays: 9\n' }))
    .toEqual({ description: 'from-file-2', days: 9 });
  expect(await describeWith({ vars: { env: 'from-var' }, env: { CPLANE_VAR_env: 'from-env' } }, { 'vars/one.yaml': 'env: from-file\n' }))
    .toEqual({ description: 'from-env', days: 7 });
});

test('a value given for an undeclared variable is a warning with a suggestion', async () => {
  const result = await load({ 'main.yaml': CONFIG }, { vars: { evn: 'x' } });
  expect(result.desired).toBeDefined();
  expect(result.diagnostics).toEqual([{ severity: 'warning', code: 'undeclared_variable', summary: 'Variable "evn" given by --var evn=... is not declared; did you mean "env"?' }]);
});

test('interpolation splices text, keeps a whole ${var.x} typed, and $${ is a literal', async () => {
  const { desired } = await load({ 'main.yaml': 'variables:\n  n: { default: 3 }\nprojects:\n  p:\n    name: "a-${var.n}-${env.HOME_X}"\n    description: "costs $${price}"\n' }, { env: { HOME_X: 'h' } });
  expect(desired!.resources[0]!.attributes).toMatchObject({ name: 'a-3-h', description: 'costs ${price}' });
});

test('a malformed interpolation is an error', async () => {
  const { diagnostics } = await load({ 'main.yaml': 'projects:\n  p: { description: "${foo}" }\n' });
  expect(diagnostics.map((d) => d.summary)).toEqual(['Invalid interpolation "${foo}": write ${var.NAME} or ${env.NAME}']);
});

test('a variable file that is not a map', async () => {
  const dir = writeConfig({ 'main.yaml': CONFIG });
  writeFileSync(join(dir, 'vars.txt'), '- a\n- b\n');
  const { diagnostics } = await loadConfig('.', { cwd: dir, env: {}, varFiles: ['vars.txt'] });
  expect(diagnostics.map((d) => d.summary)).toEqual(['Variable file vars.txt must be a map of variable names to values']);
});

test('a missing variable file', async () => {
  const dir = writeConfig({ 'main.yaml': CONFIG });
  const { diagnostics } = await loadConfig('.', { cwd: dir, env: {}, varFiles: ['nope.yaml'] });
  expect(diagnostics.map((d) => d.summary)).toEqual(['Cannot read variable file nope.yaml: ENOENT']);
});
