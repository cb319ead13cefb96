// `cplane validate` checks modules offline: a typo inside a module is reported at the module file's line:col and
// names the call; a bad call (unknown or missing input, a source that is remote, absolute or outside the
// configuration, a module that calls a module, a name the module does not declare) gets its exact error.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';
import { callerConfig, teamModule } from './team-module.js';

const temp = mkdtempSync(join(tmpdir(), 'cplane-modules-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

let folders = 0;
/** A configuration folder `infra` with main.yaml and the module file modules/team/team.yaml; validated from `temp`. */
async function validate(main: string, module = teamModule, more: Record<string, string> = {}) {
  const dir = join(temp, `case-${folders++}`, 'infra');
  mkdirSync(join(dir, 'modules', 'team'), { recursive: true });
  writeFileSync(join(dir, 'main.yaml'), main);
  writeFileSync(join(dir, 'modules', 'team', 'team.yaml'), module);
  for (const [name, text] of Object.entries(more)) writeFileSync(join(dir, name), text);
  const run = await runCli(['validate', dir, '--json'], { PATH: process.env.PATH, HOME: temp, NO_COLOR: '1' }, join(dir, '..'));
  return {
    ...run,
    report: JSON.parse(run.stdout) as {
      valid: boolean;
      resources: number;
      files: number;
      diagnostics: { code: string; summary: string; detail?: string; range?: { file: string; line: number; col: number } }[];
    },
  };
}

describe('cplane validate with modules', () => {
  it('accepts a module used twice', async () => {
    const { report, code } = await validate(callerConfig);
    expect(code).toBe(0);
    expect(report).toMatchObject({ valid: true, resources: 6, files: 2, diagnostics: [] });
  });

  it('reports a typo inside the module at its line:col, once per call, naming the call', async () => {
    const { report } = await validate(callerConfig, teamModule.replace('slug: ', 'slgu: '));
    expect(report.diagnostics.map((d) => [d.code, d.range, d.summary])).toEqual([
      [
        'unknown_key',
        { file: 'infra/modules/team/team.yaml', line: 10, col: 5 },
        'Unknown key "slgu" in gateway "main"; did you mean "slug"? (in module.payments, called at infra/main.yaml:7:3)',
      ],
      [
        'unknown_key',
        { file: 'infra/modules/team/team.yaml', line: 10, col: 5 },
        'Unknown key "slgu" in gateway "main"; did you mean "slug"? (in module.search, called at infra/main.yaml:8:3)',
      ],
    ]);
  });

  it('refuses a name the module does not declare: the caller is reached through inputs only', async () => {
    const { report } = await validate(callerConfig, teamModule.replace('project: ${var.project}', 'project: core'));
    const [first] = report.diagnostics;
    expect(first).toMatchObject({ code: 'unknown_reference', range: { file: 'infra/modules/team/team.yaml', line: 8, col: 14 } });
    expect(first?.summary).toBe(
      'Unknown project "module.payments.core" in gateway "main" (in module.payments, called at infra/main.yaml:7:3)',
    );
    expect(first?.detail).toContain("A module names the caller's resources only through its inputs");
  });

  it('refuses an unknown input and a missing one at the call', async () => {
    const { report } = await validate(callerConfig.replace('team: search, rpm: 100', 'teem: search, rpm: 100'));
    expect(report.diagnostics.map((d) => [d.code, d.range?.line, d.range?.col, d.summary])).toEqual([
      [
        'missing_module_input',
        8,
        3,
        'module.search is missing the input "team" (required by the module\'s variable at infra/modules/team/team.yaml:2:3)',
      ],
      ['unknown_module_input', 8, 49, 'module.search has no variable "teem"; did you mean "team"?'],
    ]);
  });

  it('refuses a value of the wrong type for a typed variable', async () => {
    const { report } = await validate(callerConfig.replace('rpm: 100', 'rpm: fast'));
    expect(report.diagnostics[0]).toMatchObject({
      code: 'invalid_variable_value',
      summary:
        'Variable "rpm" must be an integer; the input of module.search gives "fast" (in module.search, called at infra/main.yaml:8:3)',
    });
  });

  it.each([
    [
      'git::https://example.com/team.git',
      'module_source_not_local',
      'module.payments: source "git::https://example.com/team.git" must be a relative path starting with ./ or ../',
    ],
    ['/etc', 'module_source_not_local', 'module.payments: source "/etc" must be a relative path starting with ./ or ../'],
    ['modules/team', 'module_source_not_local', 'module.payments: source "modules/team" must be a relative path starting with ./ or ../'],
    ['../..', 'module_source_outside', 'module.payments: source "../.." is outside the configuration folder'],
    ['.', 'module_source_outside', 'module.payments: source "." is the configuration folder itself'],
    ['./modules/nope', 'module_source_missing', 'module.payments: source folder "./modules/nope" does not exist'],
  ])('refuses the source %s', async (source, code, summary) => {
    const { report } = await validate(callerConfig.replace('payments: { source: ./modules/team', `payments: { source: "${source}"`));
    expect(report.diagnostics[0]).toMatchObject({ code, summary, range: { file: 'infra/main.yaml', line: 7 } });
  });

  it('refuses a call name given in two files', async () => {
    const { report } = await validate(callerConfig, teamModule, {
      'more.yaml': 'modules:\n  payments: { source: ./modules/team, inputs: { team: p2, project: core, credential: openai } }\n',
    });
    expect(report.diagnostics.map((d) => [d.code, d.range?.file, d.summary])).toEqual([
      ['duplicate_module', 'infra/more.yaml', 'Module "payments" is called twice: in infra/main.yaml:7:3 and again here'],
    ]);
  });

  it('refuses a module that calls a module, or sets the account', async () => {
    const { report } = await validate(callerConfig, `${teamModule}account: acme\nmodules:\n  inner: { source: ./x }\n`);
    expect(report.diagnostics.filter((d) => d.summary.includes('module.payments')).map((d) => [d.code, d.summary])).toEqual([
      ['module_key_not_allowed', '"account" cannot be set in a module\'s file (in module.payments, called at infra/main.yaml:7:3)'],
      ['module_key_not_allowed', '"modules" cannot be set in a module\'s file (in module.payments, called at infra/main.yaml:7:3)'],
    ]);
  });
});
