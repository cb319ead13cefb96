/**
 * forEach in the loader: one entry written once, declared once per key of a map or a list, with
 * `${each.key}` and `${each.value...}`; list and map variables; instance addresses for children and
 * references; and the exact errors of keys that are unknown, duplicated or malformed, at the template's line.
 */
import { expect, test } from 'vitest';
import { teamGateways } from '../helpers/config-yaml.js';
import { load } from './helpers.js';
import { innerForEachAt, millionForEach } from '../helpers/million-for-each.js';

const stem = `version: 1
projects:
  core: { description: Core }
credentials:
  openai: { provider: openai, secret: { env: OPENAI_API_KEY } }
`;

const teams = `variables:
  teams:
    type: map
    default:
      payments: { rpm: 600 }
      search: { rpm: 100 }
${teamGateways('${var.teams}', {
  name: '"${each.key} gateway"',
  body: '    settings:\n      requestsPerMinute: ${each.value.rpm}\n    otelExport:\n      endpoint: https://otel.example.com/${each.key}\n    tokens:\n      ci: { scopes: [run], name: "${each.key}-ci" }\n',
})}`;

test('a map makes one instance per key, its children carry the key, and a whole ${each.value.rpm} keeps its type', async () => {
  const { desired, diagnostics } = await load({ 'main.yaml': stem + teams });
  expect(diagnostics).toEqual([]);
  const byAddress = new Map(desired!.resources.map((r) => [r.address, r]));
  expect([...byAddress.keys()].filter((a) => a.includes('['))).toEqual([
    'gateway.team[payments]',
    'otel_export.team[payments]',
    'gateway_token.team[payments]/ci',
    'gateway.team[search]',
    'otel_export.team[search]',
    'gateway_token.team[search]/ci',
  ]);
  expect(byAddress.get('gateway.team[search]')?.attributes).toMatchObject({
    name: 'search gateway',
    slug: 'gw-search',
    settings: { requestsPerMinute: 100 },
  });
  expect(byAddress.get('gateway_token.team[search]/ci')?.attributes).toMatchObject({ gateway: 'team[search]', name: 'search-ci' });
  expect(byAddress.get('gateway_token.team[search]/ci')?.dependsOn).toContain('gateway.team[search]');
  expect(byAddress.get('otel_export.team[payments]')?.attributes).toMatchObject({ endpoint: 'https://otel.example.com/payments' });
  // Every instance points at the template's line.
  expect(byAddress.get('gateway.team[search]')?.source).toEqual({ file: 'main.yaml', line: 13, col: 3 });
});

test('a list makes one instance per item, and references may name an instance', async () => {
  const { desired, diagnostics } = await load({
    'main.yaml': `version: 1
projects:
  core: { description: Core }
credentials:
  vendor:
    forEach: [openai, mistral]
    provider: \${each.key}
    secret: { env: KEY }
gateways:
  main:
    project: core
    defaultProvider: mistral
    defaultModel: mistral-small
    credentials:
      - vendor[mistral]
`,
  });
  expect(diagnostics).toEqual([]);
  expect(desired!.resources.map((r) => r.address)).toEqual([
    'project.core',
    'credential.vendor[openai]',
    'credential.vendor[mistral]',
    'gateway.main',
  ]);
  const gateway = desired!.resources.find((r) => r.address === 'gateway.main')!;
  expect(gateway.dependsOn).toContain('credential.vendor[mistral]');
  expect(desired!.resources.find((r) => r.address === 'credential.vendor[openai]')?.attributes).toMatchObject({
    provider: 'openai',
    label: 'vendor[openai]',
  });
});

test("a list of maps is keyed by each map's name; a nested forEach reads its own each", async () => {
  const { desired, diagnostics } = await load({
    'main.yaml': `${stem}gateways:
  team:
    forEach:
      - { name: payments, tokens: [ci, web] }
      - { name: search, tokens: [ci] }
    project: core
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
    tokens:
      app:
        forEach: \${each.value.tokens}
        scopes: [run]
        name: \${each.key}
`,
  });
  expect(diagnostics).toEqual([]);
  expect(desired!.resources.filter((r) => r.kind === 'gateway_token').map((r) => [r.address, r.attributes.name])).toEqual([
    ['gateway_token.team[payments]/app[ci]', 'ci'],
    ['gateway_token.team[payments]/app[web]', 'web'],
    ['gateway_token.team[search]/app[ci]', 'ci'],
  ]);
});

test('list and map variables take JSON from --var and YAML from a var file', async () => {
  const files = {
    'main.yaml': stem + teams.replace(/ {4}default:\n( {6}.*\n)+/, ''),
    'vars/teams.yaml': 'teams:\n  billing: { rpm: 7 }\n',
  };
  const fromFlag = await load(files, { variables: [{ name: 'teams', value: '{"ops":{"rpm":5}}' }] });
  expect(fromFlag.diagnostics).toEqual([]);
  expect(
    fromFlag
      .desired!.resources.filter((r) => r.kind === 'gateway')
      .map((r) => [r.address, (r.attributes.settings as { requestsPerMinute: number }).requestsPerMinute]),
  ).toEqual([['gateway.team[ops]', 5]]);
  expect(fromFlag.desired!.variables.teams).toEqual({ ops: { rpm: 5 } });
  const fromFile = await load(files, { variables: [{ file: 'vars/teams.yaml' }] });
  expect(fromFile.diagnostics).toEqual([]);
  expect(fromFile.desired!.resources.filter((r) => r.kind === 'gateway').map((r) => r.address)).toEqual(['gateway.team[billing]']);
});

test('wrong values for list and map variables are exact errors: the flag, or the file:line:col', async () => {
  const files = {
    'main.yaml': `version: 1\nvariables:\n  teams: { type: map }\n  ids: { type: list, default: { a: 1 } }\n`,
    'vars/bad.yaml': 'teams: [a, b]\n',
  };
  const flag = await load(files, { variables: [{ name: 'teams', value: '{not json' }] });
  expect(flag.diagnostics.map((d) => [d.code, d.summary, d.range?.line])).toEqual([
    [
      'invalid_variable_value',
      'Variable "teams" must be a map (in --var and CPLANE_VAR_*, as JSON: {"key":"value"}); --var teams=... gives "{not json"',
      3,
    ],
    [
      'invalid_variable_value',
      'Variable "ids" must be a list (in --var and CPLANE_VAR_*, as JSON: ["a","b"]); its default gives {"a":1}',
      4,
    ],
  ]);
  const file = await load(files, { variables: [{ file: 'vars/bad.yaml' }] });
  const teamsError = file.diagnostics.find((d) => d.summary.startsWith('Variable "teams"'));
  expect(teamsError).toMatchObject({ code: 'invalid_variable_value', range: { file: 'vars/bad.yaml', line: 1, col: 8 } });
  expect(teamsError?.summary).toContain('--var-file vars/bad.yaml gives ["a","b"]');
});

test("a typo inside a template is reported at the template's line, naming the instance", async () => {
  const typo = teams.replace('      requestsPerMinute: ${each.value.rpm}', '      requestsPerMinute: ${each.value.rmp}');
  const { diagnostics } = await load({ 'gateways.yaml': stem + typo });
  expect(diagnostics.map((d) => `${d.range?.file}:${d.range?.line}:${d.range?.col}: ${d.code}: ${d.summary}`)).toEqual([
    'gateways.yaml:22:26: unknown_each_field: ${each.value.rmp}: each.value has no field "rmp" in gateway.team[payments]; did you mean "rpm"?',
  ]);
  const key = await load({ 'gateways.yaml': stem + teams.replace('    settings:\n', '    setings:\n') });
  expect(key.diagnostics.map((d) => `${d.range?.line}:${d.range?.col}: ${d.code}: ${d.summary}`)).toEqual([
    '21:5: unknown_key: Unknown key "setings" in gateway.team[payments]; did you mean "settings"?',
  ]);
  const value = await load({ 'gateways.yaml': stem + teams.replace('search: { rpm: 100 }', 'search: { rpm: lots }') });
  expect(value.diagnostics.map((d) => `${d.range?.line}:${d.range?.col}: ${d.code}: ${d.summary}`)).toEqual([
    '22:26: wrong_type: Wrong type for "settings.requestsPerMinute" in gateway.team[search]: expected an integer or null, got a string',
  ]);
});

test('keys must be known: a forEach over a variable without a value is an error naming it (validate)', async () => {
  const { diagnostics } = await load({ 'main.yaml': stem + teams.replace(/ {4}default:\n( {6}.*\n)+/, '') }, { allowUnsetVariables: true });
  expect(diagnostics.map((d) => `${d.range?.line}:${d.range?.col}: ${d.code}: ${d.summary}`)).toEqual([
    '11:14: for_each_unknown: The keys of gateway.team depend on variable "teams", which has no value: forEach keys must be known before planning',
  ]);
});

test('duplicate, malformed and missing keys, forEach over text, each outside forEach, and a written instance name are errors', async () => {
  const gateway = (forEach: string, extra = '') =>
    `${stem}gateways:\n  team:\n    forEach: ${forEach}\n    project: core\n    defaultProvider: openai\n    defaultModel: gpt-4o-mini\n    credentials: [openai]\n${extra}`;
  const codes = async (yaml: string) =>
    (await load({ 'main.yaml': yaml })).diagnostics.map((d) => `${d.range?.line}:${d.range?.col}: ${d.code}: ${d.summary}`);
  expect(await codes(gateway('[a, b, a]'))).toEqual([
    '8:21: duplicate_for_each_key: Duplicate forEach key "a" in gateway.team: each key makes one instance',
  ]);
  expect(await codes(gateway('["a/b"]'))).toEqual([
    '8:15: invalid_for_each_key: Invalid forEach key "a/b" in gateway.team: a key is 1 to 100 printable characters without "[", "]" or "/"',
  ]);
  expect(await codes(gateway('[{ id: 1 }]'))).toEqual([
    '8:15: for_each_key_type: Item 0 of the forEach list of gateway.team has no key: a list\'s item must be text, or a map with a "name"',
  ]);
  expect(await codes(gateway('just-text'))).toEqual(['8:14: for_each_type: forEach of gateway.team must be a map or a list; got text']);
  expect(
    await codes(
      `${stem}gateways:\n  main:\n    project: core\n    defaultModel: gpt-4o-mini\n    slug: \${each.key}\n    credentials: [openai]\n`,
    ),
  ).toEqual(['10:11: each_outside_for_each: ${each.key} is used outside a forEach entry']);
  expect(await codes(gateway('[a]', '    otelExport:\n      forEach: [x]\n'))).toEqual([
    '14:7: for_each_on_single: forEach is not allowed in otelExport: there is one per gateway',
  ]);
  expect(
    await codes(`${stem}gateways:\n  team[a]:\n    project: core\n    defaultModel: gpt-4o-mini\n    credentials: [openai]\n`),
  ).toEqual(['7:3: instance_name_written: "team[a]" names an instance: instances are made by forEach, not written']);
});

test('an import block with forEach adopts one object per key', async () => {
  const { desired, diagnostics } = await load({
    'main.yaml': `${stem}variables:
  ids: { type: map, default: { a: gw-1, b: gw-2 } }
gateways:
  team:
    forEach: \${var.ids}
    project: core
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
import:
  - forEach: \${var.ids}
    to: gateway.team[\${each.key}]
    id: \${each.value}
`,
  });
  expect(diagnostics).toEqual([]);
  expect(desired!.refactoring?.imports.map(({ to, id, source }) => [to, id, source.line])).toEqual([
    ['gateway.team[a]', 'gw-1', 16],
    ['gateway.team[b]', 'gw-2', 16],
  ]);
});

test('moved between a plain address and an instance is accepted', async () => {
  const { desired, diagnostics } = await load({
    'main.yaml': `${stem + teams}moved:\n  - from: gateway.payments\n    to: gateway.team[payments]\n`,
  });
  expect(diagnostics).toEqual([]);
  expect(desired!.refactoring?.moved.map(({ from, to }) => [from, to])).toEqual([['gateway.payments', 'gateway.team[payments]']]);
});

test('hostile keys: control and bidi characters are refused; a key that looks like an interpolation stays text', async () => {
  const gateway = `${stem}variables:
  teams: { type: map }
gateways:
  team:
    forEach: \${var.teams}
    project: core
    slug: \${each.key}
    defaultProvider: openai
    defaultModel: gpt-4o-mini
    credentials: [openai]
`;
  const escape = await load(
    { 'main.yaml': gateway },
    { variables: [{ name: 'teams', value: JSON.stringify({ '\u001b]8;;x\u0007': {} }) }] },
  );
  expect(escape.diagnostics.map((d) => d.code)).toEqual(['invalid_for_each_key']);
  const bidi = await load({ 'main.yaml': gateway }, { variables: [{ name: 'teams', value: JSON.stringify({ 'a\u202eb': {} }) }] });
  expect(bidi.diagnostics.map((d) => d.code)).toEqual(['invalid_for_each_key']);
  const lookalike = await load(
    { 'main.yaml': gateway },
    {
      variables: [{ name: 'teams', value: JSON.stringify({ '${env.OPENAI_API_KEY}': {} }) }],
      env: { OPENAI_API_KEY: 'sk-must-not-appear' },
    },
  );
  expect(lookalike.diagnostics).toEqual([]);
  expect(lookalike.desired!.resources.find((r) => r.kind === 'gateway')).toMatchObject({
    address: 'gateway.team[${env.OPENAI_API_KEY}]',
    attributes: { slug: '${env.OPENAI_API_KEY}' },
  });
  expect(JSON.stringify(lookalike.desired)).not.toContain('sk-must-not-appear');
});

test('the JSON Schema describes forEach on every entry held by name, on import blocks, and list and map variables (what editors complete)', async () => {
  const { default: validateConfig } = await import('../../src/generated/config-schema.js');
  const { parse } = await import('yaml');
  const template = parse(`variables:
  teams: { type: map, default: { payments: { rpm: 600 } } }
  vendors: { type: list, default: [openai] }
credentials:
  vendor: { forEach: "\${var.vendors}", provider: "\${each.key}", secret: { env: KEY } }
projects:
  p: { forEach: [a, b], records: { r: { forEach: { x: 1 }, tags: [t] } } }
gateways:
  team:
    forEach: "\${var.teams}"
    project: core
    defaultModel: gpt-4o-mini
    credentials: ["vendor[openai]"]
    tokens: { ci: { forEach: [a], scopes: [run] } }
import:
  - { forEach: "\${var.ids}", to: "gateway.team[\${each.key}]", id: "\${each.value}" }
moved:
  - { from: gateway.payments, to: "gateway.team[payments]" }
`) as unknown;
  expect(validateConfig(template), JSON.stringify(validateConfig.errors)).toBe(true);
  expect(validateConfig(parse('gateways:\n  team: { forEach: 5, project: p, defaultModel: m, credentials: [c] }\n'))).toBe(false);
  expect(validateConfig(parse('variables:\n  teams: { type: set }\n'))).toBe(false);
});

test('a nested forEach that asks for about a million resources is refused at the forEach that goes past the bound', async () => {
  const { desired, diagnostics } = await load({ 'main.yaml': millionForEach });
  expect(desired).toBeUndefined();
  expect(diagnostics.map((d) => [d.code, d.range?.file, d.range?.line, d.range?.col, d.summary, d.detail])).toEqual([
    [
      'for_each_too_many',
      'main.yaml',
      innerForEachAt.line,
      innerForEachAt.col,
      'forEach of gateway_token.team[k019]/app would make more than 20000 instances in this file (nested forEach entries multiply)',
      'Split the configuration into several files or modules, or make the forEach maps smaller; 20000 instances per file is the bound.',
    ],
  ]);
});
