// `cplane test`: a configuration's tests/*.cptest.yaml run by the real CLI, each file against its own emulator
// in the CLI's process (no API address, token, account or state key given): passing and failing assertions,
// an apply seen by the plan after it, policy findings, a malformed test file, and JUnit XML read by a parser.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from '../../src/emulator/fixtures.js';
import { runCli } from './helpers.js';

const config = `version: 1
account: \${var.account}
variables:
  account: { description: The account }
  team: { default: shop }
projects:
  shop:
    name: \${var.team}
    description: Shop services
    records:
      stripe-key:
        value: { env: STRIPE_KEY }
credentials:
  openai: { provider: openai, label: "openai-\${var.team}", secret: { env: OPENAI_API_KEY } }
policies:
  no-legacy:
    level: mandatory
    kinds: [project]
    rule: "after.name != 'legacy'"
    message: No project may be called legacy.
`;

let temp: string;
let dir: string;
/** Only what a CI job has: no CPLANE_* variable, no secret, an empty HOME. */
let env: NodeJS.ProcessEnv;
const cli = (args: string[]) => runCli(args, env, dir);
const testFile = (name: string, yaml: string) => writeFileSync(join(dir, 'tests', name), yaml);

beforeEach(() => {
  temp = mkdtempSync(join(tmpdir(), 'cplane-test-cmd-'));
  dir = join(temp, 'infra');
  mkdirSync(join(dir, 'tests'), { recursive: true });
  writeFileSync(join(dir, 'main.yaml'), config);
  env = { PATH: process.env.PATH, HOME: temp, XDG_CONFIG_HOME: join(temp, 'config'), NO_COLOR: '1' };
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

const secrets = 'env: { STRIPE_KEY: sk_test_fake, OPENAI_API_KEY: sk-fake-openai }\n';

describe('assertions', () => {
  it('reports one line per run, what a failed assertion saw, and N passed, N failed; exit 1', async () => {
    testFile(
      'shop.cptest.yaml',
      `${secrets}runs:
  - name: plans the shop
    command: plan
    expect:
      - plan.add == 3
      - steps["record.shop/stripe-key"].action == "create"
      - steps["project.shop"].changes["name"].after == "shop"
      - policies.violations.size() == 0
  - name: counts wrong
    command: plan
    variables: { team: books }
    expect:
      - plan.add == 5
      - steps["project.shop"].changes["name"].after == "shop" && plan.remove == 0
      - steps["gateway.nope"].action == "create"
`,
    );
    const run = await cli(['test']);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^PASS tests\/shop\.cptest\.yaml: plans the shop \(plan, 4 assertions\) \d+\.\d{3}s$/);
    expect(lines[1]).toMatch(/^FAIL tests\/shop\.cptest\.yaml: counts wrong \(plan, 3 assertions\) /);
    expect(lines.slice(2, 5)).toEqual([
      '    plan.add == 5: was false: plan.add = 3',
      '    steps["project.shop"].changes["name"].after == "shop" && plan.remove == 0: was false: steps["project.shop"].changes["name"].after = "books"',
      '    steps["gateway.nope"].action == "create": could not be evaluated: No such key: gateway.nope',
    ]);
    expect(run.stdout.endsWith('\n1 passed, 1 failed\n')).toBe(true);
    expect(run.code).toBe(1);
    // Nothing of the machine was used or left: no state key made in HOME, no state in the folder.
    expect(existsSync(join(temp, 'config', 'cplane'))).toBe(false);
    expect(existsSync(join(dir, '.cplane'))).toBe(false);
  });

  it('exits 0 when every run passes; --json gives the same results to machines', async () => {
    testFile('a.cptest.yaml', `${secrets}runs:\n  - command: plan\n    expect: ["plan.add == 3", "plan.mode == 'normal'"]\n`);
    const run = await cli(['test', dir, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      passed: number;
      failed: number;
      files: {
        file: string;
        valid: boolean;
        runs: { name: string; passed: boolean; assertions: { expression: string; passed: boolean }[] }[];
      }[];
    };
    expect(report).toMatchObject({ passed: 1, failed: 0, files: [{ file: join('tests', 'a.cptest.yaml'), valid: true }] });
    expect(report.files[0]!.runs).toEqual([
      expect.objectContaining({
        name: 'run 1',
        passed: true,
        assertions: [
          { expression: 'plan.add == 3', passed: true },
          { expression: "plan.mode == 'normal'", passed: true },
        ],
      }),
    ]);
  });

  it("an assertion that backtracks without end is stopped at the policies' deadline and fails closed; the next ones, and the next runs' with their own facts, are checked", async () => {
    const catastrophic = `"${'a'.repeat(40)}!".matches("^(a+)+$") == false`;
    const later = '  - command: apply\n    expect: ["apply.done == 3"]\n  - command: plan\n    expect: ["plan.add == 0"]\n';
    testFile(
      'a.cptest.yaml',
      `${secrets}runs:\n  - command: plan\n    expect: ['${catastrophic}', "plan.add == 4", "plan.add == 3"]\n${later}`,
    );
    const run = await cli(['test', '--json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      files: { runs: { passed: boolean; assertions: { expression: string; passed: boolean; code?: string; message?: string }[] }[] }[];
    };
    expect(report.files[0]!.runs[0]!.assertions).toEqual([
      {
        expression: catastrophic,
        passed: false,
        code: 'assertion_deadline',
        message: "did not finish within 5000 ms (a policy rule's deadline): it was stopped, so it fails",
      },
      { expression: 'plan.add == 4', passed: false, message: 'was false: plan.add = 3' },
      { expression: 'plan.add == 3', passed: true },
    ]);
    // One worker serves the file's runs: the one the stopped assertion ended is replaced, and each run sees its own facts.
    expect(report.files[0]!.runs.slice(1).map((r) => r.assertions)).toEqual([
      [{ expression: 'apply.done == 3', passed: true }],
      [{ expression: 'plan.add == 0', passed: true }],
    ]);
  });

  it('a tests folder that is a link out of the configuration folder is refused, and nothing of it is read', async () => {
    rmSync(join(dir, 'tests'), { recursive: true });
    mkdirSync(join(temp, 'elsewhere'));
    writeFileSync(join(temp, 'elsewhere', 'a.cptest.yaml'), 'runs: [ secret-line-outside\n');
    symlinkSync(join(temp, 'elsewhere'), join(dir, 'tests'));
    const run = await cli(['test']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `The test folder ${join(dir, 'tests')} leads outside the configuration folder ${dir} through a symbolic link: no test file was read.`,
    );
    expect(run.stdout + run.stderr).not.toContain('secret-line-outside');
  });

  it('a variable the configuration does not declare fails the run, naming the test file', async () => {
    testFile('a.cptest.yaml', `${secrets}runs:\n  - command: plan\n    variables: { teem: books }\n`);
    const run = await cli(['test']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('warning: Variable "teem" given by tests/a.cptest.yaml is not declared; did you mean "team"?');
  });

  it('reads no secret from the environment: a source the test file does not give fails the run, naming it', async () => {
    env.OPENAI_API_KEY = 'sk-real-key-from-the-machine';
    env.STRIPE_KEY = 'sk-real-stripe';
    testFile('a.cptest.yaml', 'runs:\n  - command: apply\n');
    const run = await cli(['test']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL tests\/a\.cptest\.yaml: run 1 \(apply\)/);
    expect(run.stdout).toMatch(/STRIPE_KEY|OPENAI_API_KEY/);
    expect(run.stdout).not.toContain('sk-real');
  });
});

describe('runs in order against one emulator', () => {
  it('an apply is seen by the plans after it, and a changed variable is an update', async () => {
    testFile(
      'lifecycle.cptest.yaml',
      `${secrets}runs:
  - name: apply creates the shop
    command: apply
    expect: [apply.done == 3, apply.failed == 0, "!apply.refused"]
  - name: nothing left to do
    command: plan
    expect: ["!plan.changes", plan.add == 0, size(steps) == 0]
  - name: a new team name renames the project
    command: plan
    variables: { team: books }
    expect:
      - plan.change == 2
      - steps["project.shop"].action == "update"
      - steps["project.shop"].changes["name"].before == "shop"
`,
    );
    const run = await cli(['test']);
    expect(run.stdout).toContain('3 passed, 0 failed');
    expect(run.code).toBe(0);
    // The secret sources' values were sent to the emulator, and appear nowhere in what the command printed.
    const json = await cli(['test', '--json', '--junit-xml', join(temp, 'r.xml')]);
    for (const out of [run.stdout, run.stderr, json.stdout, json.stderr, readFileSync(join(temp, 'r.xml'), 'utf8')]) {
      expect(out).not.toContain('sk_test_fake');
      expect(out).not.toContain('sk-fake-openai');
    }
  });

  it('each file starts from a fresh emulator and an empty state', async () => {
    testFile('1-apply.cptest.yaml', `${secrets}runs:\n  - { command: apply, expect: [apply.done == 3] }\n`);
    testFile('2-fresh.cptest.yaml', `${secrets}runs:\n  - { command: plan, expect: [plan.add == 3] }\n`);
    const run = await cli(['test']);
    expect(run.stdout).toContain('2 passed, 0 failed');
    expect(run.code).toBe(0);
  });

  it("a configuration's own account, unknown to the fixtures, is added to the emulator; a test file's account: is the one planned in", async () => {
    testFile(
      'own.cptest.yaml',
      `${secrets}variables: { account: 12345678-1234-4123-8123-123456789abc }\nruns:
  - { command: apply, expect: [apply.done == 3, plan.account == "12345678-1234-4123-8123-123456789abc"] }
  - { command: plan, expect: ["!plan.changes"] }
`,
    );
    testFile(
      'staging.cptest.yaml',
      `${secrets}account: ${fixtures.accounts[1]!.id}\nruns:\n  - { command: plan, expect: [plan.account == "${fixtures.accounts[1]!.id}"] }\n`,
    );
    const run = await cli(['test']);
    expect(run.stdout).toContain('3 passed, 0 failed');
  });
});

describe('policies', () => {
  const legacy = `${secrets}variables: { team: legacy }\n`;

  it('a mandatory finding fails a run that does not assert on policies, and refuses its apply', async () => {
    testFile('p.cptest.yaml', `${legacy}runs:\n  - { command: plan, expect: [plan.add == 3] }\n  - { command: apply }\n`);
    const run = await cli(['test']);
    expect(run.stdout).toContain(
      [
        '    refused by policy: 1 mandatory finding (assert on `policies` to test them):',
        '      - project.shop: no-legacy: No project may be called legacy.',
      ].join('\n'),
    );
    expect(run.stdout).toContain('0 passed, 2 failed');
  });

  it('a refused apply counts as failed: `apply.failed == 0` fails a run whose apply a mandatory policy refused', async () => {
    testFile('p.cptest.yaml', `${legacy}runs:\n  - { command: apply, expect: [apply.failed == 0] }\n`);
    const run = await cli(['test']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('0 passed, 1 failed');
    expect(run.stdout).toContain('      - project.shop: not applied: a mandatory policy refused the apply');
    expect(run.stdout).toMatch(/was false: apply\.failed = 3/);
  });

  it('a run that asserts on the findings tests the policy itself', async () => {
    testFile(
      'p.cptest.yaml',
      `${legacy}runs:
  - command: apply
    expect:
      - policies.mandatory.size() == 1
      - policies.violations[0].policy == "no-legacy" && policies.violations[0].address == "project.shop"
      - apply.refused && apply.done == 0
  - { command: plan, expect: [plan.add == 3] , variables: { team: shop } }
`,
    );
    const run = await cli(['test']);
    expect(run.stdout).toContain('2 passed, 0 failed');
    expect(run.code).toBe(0);
  });
});

describe('a malformed test file', () => {
  it("is reported at file:line:col with the configuration's words, and none of its runs run", async () => {
    testFile(
      'bad.cptest.yaml',
      `runs:
  - command: destroy
  - comand: plan
    command: plan
  - command: plan
    expect:
      - plan.add ==
      - plan.nonsense + 1
      - nothing.here == 1
`,
    );
    const run = await cli(['test']);
    expect(run.code).toBe(1);
    const out = run.stdout;
    expect(out).toContain('tests/bad.cptest.yaml:2:14: error: "runs[0].command" must be one of plan, apply; got "destroy"');
    expect(out).toContain('tests/bad.cptest.yaml:3:5: error: Unknown key "comand" in "runs[1]" of the file; did you mean "command"?');
    expect(out).toContain('FAIL tests/bad.cptest.yaml: the test file is not valid (2 errors); none of its runs ran');
    expect(out).toContain('0 passed, 1 failed');
  });

  it('reports an assertion that is not CEL, or names what a run does not have, at its line', async () => {
    testFile(
      'cel.cptest.yaml',
      'runs:\n  - command: plan\n    expect:\n      - plan.add ==\n      - nothing.here == 1\n      - "\'text\'"\n      - plan.addresses.all(a, plan.addresses.exists(b, plan.addresses.exists(c, a == b && b == c)))\n      - plan.addresses.all(a, plan.addresses.exists(b, a == b))\n',
    );
    const run = await cli(['test', '--json']);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      files: { valid: boolean; diagnostics: { code: string; summary: string; range: { line: number; col: number } }[] }[];
    };
    expect(report.files[0]!.valid).toBe(false);
    expect(report.files[0]!.diagnostics.map((d) => [d.code, d.range.line, d.range.col])).toEqual([
      ['assertion_syntax', 4, 9],
      ['assertion_type', 5, 9],
      ['assertion_not_bool', 6, 9],
      // Three comprehensions inside each other would never end over a large plan; two are allowed.
      ['assertion_too_costly', 7, 9],
    ]);
    expect(report.files[0]!.diagnostics[1]!.summary).toContain('nothing');
  });

  it('a folder without tests/*.cptest.yaml is an error that says where they go', async () => {
    const run = await cli(['test']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `No test files in ${join(dir, 'tests')}: \`cplane test\` runs the files tests/*.cptest.yaml of the configuration folder.`,
    );
  });
});

describe('--junit-xml', () => {
  const hostile = '<script>&"\' \u001b[31m]]> \u202e';

  it('writes JUnit XML that a strict parser reads: suites, cases, failures, every name escaped', async () => {
    testFile(
      'a.cptest.yaml',
      `${secrets}runs:
  - { name: passes, command: plan, expect: [plan.add == 3] }
  - { name: ${JSON.stringify(hostile)}, command: plan, expect: ["plan.add == 4", "'<b>' == '</failure>'"] }
`,
    );
    testFile('b.cptest.yaml', 'runs: [{ command: nope }]\n');
    const run = await cli(['test', '--junit-xml', join(temp, 'report.xml')]);
    expect(run.code).toBe(1);
    // On the terminal too, the name's control characters are shown escaped, never sent.
    expect(run.stdout).toContain('FAIL tests/a.cptest.yaml: <script>&"\' \\e[31m]]> \\u202e (plan, 2 assertions)');
    expect(run.stdout).not.toContain('\u001b');
    const xml = readFileSync(join(temp, 'report.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('\u001b');

    const parsed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (name) => ['testsuite', 'testcase'].includes(name),
    }).parse(xml) as {
      testsuites: {
        tests: string;
        failures: string;
        testsuite: {
          name: string;
          tests: string;
          failures: string;
          testcase: { name: string; classname: string; failure?: { message: string; type: string; '#text': string } }[];
        }[];
      };
    };
    const { testsuites } = parsed;
    expect([testsuites.tests, testsuites.failures]).toEqual(['3', '2']);
    expect(testsuites.testsuite.map((s) => [s.name, s.tests, s.failures])).toEqual([
      ['tests/a.cptest.yaml', '2', '1'],
      ['tests/b.cptest.yaml', '1', '1'],
    ]);
    const [passes, failing] = testsuites.testsuite[0]!.testcase;
    expect(passes).toMatchObject({ name: 'passes', classname: 'tests/a.cptest.yaml' });
    expect(passes!.failure).toBeUndefined();
    // The name reads back as written, its control characters shown escaped.
    expect(failing!.name).toBe('<script>&"\' \\e[31m]]> \\u202e');
    expect(failing!.failure!.message).toBe('plan.add == 4: was false: plan.add = 3');
    expect(failing!.failure!['#text']).toBe("plan.add == 4: was false: plan.add = 3\n'<b>' == '</failure>': was false");
    const invalid = testsuites.testsuite[1]!.testcase[0]!;
    expect(invalid.name).toBe('the test file is valid');
    expect(invalid.failure!.type).toBe('invalid_test_file');
    expect(invalid.failure!.message).toBe('tests/b.cptest.yaml:1:19: error: "runs[0].command" must be one of plan, apply; got "nope"');
  });
});

describe('examples/quickstart/tests', () => {
  it("the quickstart's own test file passes, run from another folder", async () => {
    const quickstart = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));
    const run = await runCli(['test', quickstart], env, temp);
    expect(run.stdout).toMatch(/^PASS .*quickstart\.cptest\.yaml: a first plan creates everything \(plan, 5 assertions\)/);
    expect(run.stdout).toContain('4 passed, 0 failed');
    expect(run.code).toBe(0);
    // Nothing was written into the example folder.
    expect(existsSync(join(quickstart, '.cplane'))).toBe(false);
  });
});
