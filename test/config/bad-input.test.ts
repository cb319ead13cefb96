/**
 * Every kind of bad input gets its exact, helpful diagnostic: a stable code,
 * the words the user reads, and the line and column it points at.
 */
import { describe, expect, test } from 'vitest';
import { formatDiagnostic } from '../../src/config/index.js';
import { BASE, load } from './helpers.js';

async function only(files: Record<string, string | Buffer>) {
  const result = await load(files);
  expect(result.desired).toBeUndefined();
  expect(result.diagnostics).toHaveLength(1);
  return result.diagnostics[0]!;
}

describe('YAML itself', () => {
  test('a syntax error points at the first broken token only', async () => {
    const d = await only({ 'main.yaml': 'projects:\n  a: [1, 2\n  b: 3\n' });
    expect(d).toMatchObject({ code: 'yaml_syntax', range: { file: 'main.yaml', line: 3, col: 3 } });
    expect(d.summary).toBe('YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]');
  });

  test('an unquoted ${...} inside a flow collection gets a hint to quote it', async () => {
    const d = await only({
      'main.yaml': 'variables:\n  env: { default: x }\nprojects:\n  a: { records: { r: { tags: [${var.env}] } } }\n',
    });
    expect(d.code).toBe('yaml_syntax');
    expect(d.detail).toBe('Inside [ ] or { }, quote a value that contains "${...}", e.g. ["${var.env}"].');
  });

  test('tab indentation', async () => {
    const d = await only({ 'main.yaml': 'projects:\n\ta: {}\n' });
    expect(d).toMatchObject({ code: 'yaml_tab_indent', range: { file: 'main.yaml', line: 2, col: 1 } });
    expect(d.summary).toBe('Tabs are not allowed for indentation in YAML; indent with spaces');
  });

  test('duplicate key', async () => {
    const d = await only({ 'main.yaml': 'projects:\n  a: {}\n  a: {}\n' });
    expect(d).toMatchObject({ code: 'duplicate_key', range: { line: 3, col: 3 } });
    expect(d.summary).toBe('Duplicate key "a": a key may appear only once in a map');
  });

  test('a file that is not UTF-8 is refused at the first bad byte', async () => {
    const bytes = Buffer.concat([Buffer.from('projects:\n  caf'), Buffer.from([0xe9]), Buffer.from(': {}\n')]);
    const d = await only({ 'main.yaml': bytes });
    expect(d).toMatchObject({ code: 'not_utf8', summary: 'main.yaml is not valid UTF-8', range: { line: 2, col: 6 } });
  });

  test('a 10 MB file is refused by its size before it is read', async () => {
    const d = await only({ 'main.yaml': Buffer.alloc(10 * 1024 * 1024, 0x20) });
    expect(d).toMatchObject({ code: 'file_too_large', summary: 'main.yaml is 10.0 MB; a configuration file may be at most 5 MB' });
  });

  test('a YAML bomb is refused before its aliases are expanded', async () => {
    const nine = (x: string) => `[${Array(9).fill(x).join(',')}]`;
    const bomb = `a: &a ${nine('"lol"')}\nb: &b ${nine('*a')}\nc: &c ${nine('*b')}\nd: &d ${nine('*c')}\ne: &e ${nine('*d')}\nf: &f ${nine('*e')}\ng: ${nine('*f')}\n`;
    const before = process.memoryUsage().heapUsed;
    const d = await only({ 'main.yaml': bomb });
    expect(d.code).toBe('yaml_alias_limit');
    expect(d.summary).toBe('main.yaml expands too many YAML aliases (more than 100); refusing it as a possible "billion laughs" attack');
    // 9^7 = 4.8 million strings if expanded; refused, the heap barely moves.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
  });

  test('an undefined YAML alias is reported as one, at its place, not as an attack', async () => {
    const d = await only({ 'main.yaml': 'projects:\n  p:\n    description: *nope\n' });
    expect(d).toMatchObject({
      code: 'yaml_undefined_alias',
      summary: 'Undefined YAML alias "*nope": no anchor "&nope" is set before it',
      range: { file: 'main.yaml', line: 3, col: 18 },
    });
    expect(d.detail).toBe('Set the anchor (&nope) on a value above this line, or write the value out.');
  });

  test('flow collections nested past what the parser can hold are reported as too deep, not as a stack overflow', async () => {
    const d = await only({ 'main.yaml': `projects:\n  p:\n    description: ${'['.repeat(5000)}${']'.repeat(5000)}\n` });
    expect(d).toMatchObject({
      code: 'yaml_too_deep',
      summary: 'main.yaml nests lists or maps too deeply: a configuration file may nest at most 64 levels',
    });
    expect(d.range).toMatchObject({ file: 'main.yaml', line: 3 });
    expect(JSON.stringify(d)).not.toContain('call stack');
  });

  test('block maps nested deeper than 64 levels are refused at the first level too deep', async () => {
    let text = 'projects:\n  p:\n    records:\n';
    for (let i = 0; i < 200; i++) text += `${' '.repeat(6 + i)}k${i}:\n`;
    text += `${' '.repeat(206)}v: 1\n`;
    const d = await only({ 'main.yaml': text });
    expect(d).toMatchObject({
      code: 'yaml_too_deep',
      summary: 'main.yaml nests lists or maps too deeply: a configuration file may nest at most 64 levels',
      range: { file: 'main.yaml', line: 65, col: 68 },
    });
  });

  test('an empty folder', async () => {
    const result = await load({});
    expect(result.desired).toBeUndefined();
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'no_config_files',
        summary: `No configuration files in ${result.dir}: expected at least one *.yaml or *.yml file`,
        detail: 'Subfolders are not read. `cplane init DIR` writes a starter cplane.yaml into a folder that has none.',
      },
    ]);
  });

  test('a folder that does not exist', async () => {
    const result = await load({ 'main.yaml': BASE }, {});
    const { loadConfiguration } = await import('../../src/providers/index.js');
    const missing = await loadConfiguration('nope', { cwd: result.dir, env: {} });
    expect(missing.diagnostics[0]?.summary).toBe(`Configuration folder ${result.dir}/nope does not exist`);
  });
});

describe('the schema', () => {
  test('wrong type says what was expected', async () => {
    const d = await only({ 'main.yaml': BASE.replace('rotationIntervalDays: 90', 'rotationIntervalDays: ninety') });
    expect(d).toMatchObject({ code: 'wrong_type', range: { line: 7, col: 31 } });
    expect(d.summary).toBe(
      'Wrong type for "rotationIntervalDays" in record "payments/stripe-key": expected an integer or null, got a string',
    );
  });

  test('a number where text is expected gets a hint to quote it', async () => {
    const d = await only({ 'main.yaml': `${BASE}    settings: { spendLimitUsd: 100.50 }\n` });
    expect(d.summary).toBe('Wrong type for "settings.spendLimitUsd" in gateway "prod": expected a string or null, got a number');
    expect(d.detail).toBe('YAML reads this as a number or boolean: quote it to keep it text, e.g. "100.00".');
  });

  test('a file that is not a map', async () => {
    const d = await only({ 'main.yaml': '- projects\n' });
    expect(d).toMatchObject({
      code: 'wrong_type',
      summary:
        'main.yaml must be a map of top-level keys (version, account, variables, projects, credentials, gateways, moved, removed, import, policies, directory, defaults, modules)',
    });
  });

  test('unknown key suggests the closest valid one', async () => {
    const d = await only({ 'main.yaml': BASE.replace('description:', 'descripton:') });
    expect(d).toMatchObject({ code: 'unknown_key', range: { line: 4, col: 5 } });
    expect(d.summary).toBe('Unknown key "descripton" in project "payments"; did you mean "description"?');
    // Every key of a project, its fields first (a kind declared inside one adds its key before `lifecycle`).
    expect(d.detail).toMatch(/^Valid keys: forEach, name, description, active, records, groupRoles, (\w+, )*lifecycle, dependsOn\.$/);
  });

  test('value out of range gives both bounds', async () => {
    const d = await only({ 'main.yaml': BASE.replace('rotationIntervalDays: 90', 'rotationIntervalDays: 5000') });
    expect(d).toMatchObject({ code: 'out_of_range', range: { line: 7, col: 31 } });
    expect(d.summary).toBe('"rotationIntervalDays" in record "payments/stripe-key" must be between 1 and 3650; got 5000');
  });

  test('invalid date-time', async () => {
    const d = await only({ 'main.yaml': BASE.replace('rotationIntervalDays: 90', 'secretDueAt: 2027-13-01') });
    expect(d).toMatchObject({ code: 'invalid_datetime', range: { line: 7, col: 22 } });
    expect(d.summary).toBe('"secretDueAt" in record "payments/stripe-key" is not a valid date-time: "2027-13-01"');
    expect(d.detail).toBe('Write an ISO 8601 date-time with a time zone, e.g. 2027-01-01T00:00:00Z.');
  });

  test('a wrong enum value suggests the allowed ones', async () => {
    const d = await only({ 'main.yaml': `${BASE}    settings: { window: dya }\n` });
    expect(d.summary).toBe('"settings.window" in gateway "prod" must be one of minute, hour, day, month; got "dya"; did you mean "day"?');
  });

  test('a missing required key points at the resource', async () => {
    const d = await only({ 'main.yaml': BASE.replace('    provider: openai\n', '') });
    expect(d).toMatchObject({
      code: 'missing_key',
      summary: 'Missing required key "provider" in credential "openai-prod"',
      range: { line: 9, col: 3 },
    });
  });

  test('an invalid local name', async () => {
    const d = await only({ 'main.yaml': 'projects:\n  "bad name": {}\n' });
    expect(d).toMatchObject({ code: 'invalid_name', summary: 'Invalid name "bad name" in "projects"', range: { line: 2, col: 3 } });
  });

  test('an inline secret is refused without echoing it, in the message or the snippet', async () => {
    const result = await load({ 'main.yaml': BASE.replace('secret: { env: OPENAI_API_KEY }', 'secret: sk-live-abc123') });
    const [d] = result.diagnostics;
    expect(result.diagnostics).toHaveLength(1);
    expect(d).toMatchObject({ code: 'inline_secret', range: { line: 11, col: 13 } });
    expect(d!.summary).toBe('A secret must not be written inline: "secret" in credential "openai-prod" takes a secret source, not a value');
    expect(d!.snippet).toBe('  11 |     secret: <redacted>\n     |             ^^^^^^^^^^');
    expect(JSON.stringify(result.diagnostics)).not.toContain('sk-live');
    expect(formatDiagnostic(d!, { color: false })).not.toContain('sk-live');
  });

  test('an inline OTel header value is refused the same way', async () => {
    const result = await load({
      'main.yaml': `${BASE}    otelExport:\n      endpoint: https://otel.example.com\n      headers: { Authorization: Bearer s3cr3t }\n`,
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['inline_secret']);
    expect(JSON.stringify(result.diagnostics)).not.toContain('s3cr3t');
  });

  test('a secret interpolated from the environment is still refused, and not echoed', async () => {
    const result = await load(
      { 'main.yaml': BASE.replace('secret: { env: OPENAI_API_KEY }', 'secret: "${env.KEY}"') },
      { env: { KEY: 'sk-live-from-env' } },
    );
    expect(result.diagnostics.map((d) => d.code)).toEqual(['inline_secret']);
    expect(JSON.stringify(result.diagnostics)).not.toContain('sk-live');
  });

  test('a secret source with two kinds', async () => {
    const d = await only({ 'main.yaml': BASE.replace('secret: { env: OPENAI_API_KEY }', 'secret: { env: A, file: ./b }') });
    expect(d.summary).toBe('"secret" in credential "openai-prod" must give exactly one of env, file or generate');
  });
});

describe('variables', () => {
  test('an unresolved variable suggests the declared one', async () => {
    const d = await only({
      'main.yaml': `${BASE.replace('description: Payment services', 'description: ${var.enviroment}')}variables:\n  environment: { default: x }\n`,
    });
    expect(d).toMatchObject({ code: 'unresolved_variable', range: { line: 4, col: 18 } });
    expect(d.summary).toBe('Unknown variable "enviroment" in ${var.enviroment}; did you mean "environment"?');
  });

  test('a required variable left unset names it and how to set it', async () => {
    const d = await only({ 'main.yaml': 'variables:\n  account: {}\naccount: ${var.account}\n' });
    expect(d).toMatchObject({
      code: 'variable_unset',
      summary: 'Variable "account" is required but has no value',
      range: { line: 2, col: 3 },
    });
    expect(d.detail).toBe('Set it with --var account=VALUE, in a --var-file, or with the environment variable CPLANE_VAR_account.');
  });

  test('a required `account` variable takes the account chosen with --account or CPLANE_ACCOUNT', async () => {
    const files = { 'main.yaml': 'variables:\n  account: {}\naccount: ${var.account}\n' };
    const byFlag = await load(files, { account: '0a000000-0000-4000-8000-000000000002' });
    expect(byFlag.diagnostics).toEqual([]);
    expect(byFlag.desired?.account).toBe('0a000000-0000-4000-8000-000000000002');
    const byEnv = await load(files, { env: { CPLANE_ACCOUNT: '0a000000-0000-4000-8000-000000000001' } });
    expect(byEnv.desired?.account).toBe('0a000000-0000-4000-8000-000000000001');
  });

  test('an unset environment variable', async () => {
    const d = await only({ 'main.yaml': 'projects:\n  a: { description: "${env.NOPE}" }\n' });
    expect(d).toMatchObject({
      code: 'unresolved_variable',
      summary: 'Environment variable "NOPE" is not set (used as ${env.NOPE})',
      range: { line: 2, col: 22 },
    });
  });

  test('a value that does not fit the declared type', async () => {
    const d = (await load({ 'main.yaml': 'variables:\n  days: { type: integer }\n' }, { variables: [{ name: 'days', value: 'ten' }] }))
      .diagnostics[0];
    expect(d?.summary).toBe('Variable "days" must be an integer; --var days=... gives "ten"');
  });
});

describe('across files', () => {
  test('an unknown reference suggests the closest names', async () => {
    const d = await only({ 'main.yaml': BASE.replace('project: payments', 'project: paymnts') });
    expect(d).toMatchObject({ code: 'unknown_reference', range: { line: 14, col: 14 } });
    expect(d.summary).toBe('Unknown project "paymnts" in gateway "prod"; did you mean "payments"?');
    expect(d.detail).toBe('Declared projects: payments.');
  });

  test('an unknown credential in another file', async () => {
    const result = await load({
      'a.yaml': BASE.replace('credentials:\n  openai-prod:\n    provider: openai\n    secret: { env: OPENAI_API_KEY }\n', ''),
      'b.yaml': 'credentials:\n  openai-dev:\n    provider: openai\n    secret: { env: K }\n',
    });
    expect(result.diagnostics.map((d) => d.summary)).toEqual([
      'Unknown credential "openai-prod" in gateway "prod"; did you mean "openai-dev"?',
    ]);
  });

  test('a duplicate address across files names both places', async () => {
    const d = await only({ 'a.yaml': BASE, 'b.yaml': 'projects:\n  payments: {}\n' });
    expect(d).toMatchObject({ code: 'duplicate_address', range: { file: 'b.yaml', line: 2, col: 3 } });
    expect(d.summary).toBe('Duplicate address project.payments: declared in a.yaml:3:3 and again here');
  });

  test('a dependency cycle through an explicit dependsOn', async () => {
    const d = await only({ 'main.yaml': BASE.replace('description: Payment services', 'dependsOn: [gateway.prod]') });
    expect(d).toMatchObject({ code: 'dependency_cycle', range: { line: 4, col: 17 } });
    expect(d.summary).toBe('Dependency cycle: gateway.prod -> project.payments -> gateway.prod');
  });

  test('an unknown dependsOn address', async () => {
    const d = await only({ 'main.yaml': BASE.replace('description: Payment services', 'dependsOn: [credential.openai-prd]') });
    expect(d.summary).toBe(
      'Unknown address "credential.openai-prd" in dependsOn of project.payments; did you mean "credential.openai-prod"?',
    );
  });

  test('a default provider that no attached credential has', async () => {
    const d = await only({ 'main.yaml': BASE.replace('    defaultModel', '    defaultProvider: anthropic\n    defaultModel') });
    expect(d).toMatchObject({ code: 'default_provider_mismatch', range: { line: 15, col: 22 } });
    expect(d.summary).toBe('defaultProvider "anthropic" of gateway "prod" is not the provider of any attached credential');
    expect(d.detail).toBe('The attached credentials are for: openai. Attach a credential of that provider, or choose one of these.');
  });

  test('an enabled OTel export without endpoint', async () => {
    const d = await only({ 'main.yaml': `${BASE}    otelExport: { exportTraces: false }\n` });
    expect(d.summary).toBe('Missing required key "endpoint" in the OTel export of gateway "prod": an enabled export needs an endpoint');
  });
});

test('all errors of all files come in one run, in file and line order', async () => {
  const result = await load({
    'a.yaml': BASE.replace('description:', 'descripton:').replace('rotationIntervalDays: 90', 'rotationIntervalDays: 0'),
    'b.yaml': 'credentials:\n  x:\n    provider: 5\n    secret: { env: K }\n',
    'c.yaml': 'projects:\n\tz: {}\n',
  });
  expect(result.diagnostics.map((d) => `${d.range?.file}:${d.range?.line} ${d.code}`)).toEqual([
    'a.yaml:4 unknown_key',
    'a.yaml:7 out_of_range',
    'b.yaml:3 wrong_type',
    'c.yaml:2 yaml_tab_indent',
  ]);
});
