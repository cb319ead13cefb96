/**
 * `cplane validate` compiles every policy's rule: a syntax error, a type error (an unknown variable, a wrong
 * operand) and a rule that does not give a bool are each reported at the rule's line, offline.
 */
import { expect, test } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { writeConfig } from './helpers.js';

// Diagnostics: the CLI's entry runs in-process (the messages and exit codes are the subject, not the process).
const cplane = (args: string[], cwd: string) => runInProcess(args, { PATH: process.env.PATH ?? '' }, cwd);

const withRule = (rule: string) => `version: 1
projects:
  shop: { description: Shop }
policies:
  first:
    level: advisory
    rule: "after.name != ''"
  second:
    level: mandatory
    kinds: [project]
    rule: ${JSON.stringify(rule)}
`;

test('valid rules: the summary counts the policies', async () => {
  expect(await cplane(['validate'], writeConfig({ 'main.yaml': withRule('after.active == true') }))).toEqual({
    code: 0,
    stdout: 'Configuration is valid: 1 resource and 2 policies in 1 file.\n',
    stderr: '',
  });
});

test("a syntax error: exit 1, at the rule's line, with CEL's caret under the place", async () => {
  const run = await cplane(['validate'], writeConfig({ 'main.yaml': withRule('after.active == ') }));
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('main.yaml:11:11: error: Policy "second": the rule is not valid CEL: Unexpected token: EOF');
  expect(run.stderr).toMatch(/> {4}1 \| after\.active == \n {27}\^/);
});

test('type errors and a rule that is not a bool, as JSON with their codes and ranges', async () => {
  for (const [rule, code, summary] of [
    ['owner == "me"', 'policy_type', 'Policy "second": the rule does not type-check: Unknown variable: owner'],
    ['action + 1 == 2', 'policy_type', 'Policy "second": the rule does not type-check: no such overload: string + int'],
    ['size(address)', 'policy_not_bool', 'Policy "second": the rule gives a int, not a bool'],
  ] as const) {
    const run = await cplane(['validate', '--json'], writeConfig({ 'main.yaml': withRule(rule) }));
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { valid: boolean; diagnostics: { code: string; summary: string; range: unknown }[] };
    expect(report.valid).toBe(false);
    expect(report.diagnostics.map((d) => [d.code, d.summary, d.range])).toEqual([
      [code, summary, { file: 'main.yaml', line: 11, col: 11 }],
    ]);
  }
});

test('plan reports the same error before it reads anything', async () => {
  const dir = writeConfig({ 'main.yaml': withRule('after.active ==') });
  const result = await runInProcess(
    ['plan'],
    {
      PATH: process.env.PATH ?? '',
      CPLANE_BASE_URL: 'http://127.0.0.1:9',
      CPLANE_TOKEN: 'sk-svc-pat-x',
      CPLANE_ACCOUNT: '0a000000-0000-4000-8000-000000000002',
      CPLANE_STATE_KEY: Buffer.alloc(32, 1).toString('base64'),
    },
    dir,
  );
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('main.yaml:11:11: error: Policy "second": the rule is not valid CEL');
});

test('a level the schema does not know is refused like any other key', async () => {
  const run = await cplane(['validate'], writeConfig({ 'main.yaml': withRule('true').replace('level: mandatory', 'level: required') }));
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('main.yaml:9:12: error: "policies.second.level" must be one of mandatory, advisory; got "required"');
});

test('a rule that uses a variable without a value is left to plan; with the value it is compiled', async () => {
  const dir = writeConfig({
    'main.yaml': `${withRule('true')}variables:\n  maxDays: { type: integer }\n`.replace(
      'rule: "true"',
      'rule: "after.active || ${var.maxDays} > 0"',
    ),
  });
  expect(await cplane(['validate'], dir)).toMatchObject({
    code: 0,
    stdout: 'Configuration is valid: 1 resource and 2 policies in 1 file (without a value for "maxDays": checked for type only).\n',
  });
  expect((await cplane(['validate', '--var', 'maxDays=90'], dir)).code).toBe(0);
  const bad = await cplane(['validate', '--var', 'maxDays=ninety'], dir);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/main\.yaml:\d+:\d+: error: /);
});
