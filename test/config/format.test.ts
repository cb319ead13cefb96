// cplane fmt's canonical form (src/config/files/format.ts): schema key order, flow lists that fit, comments kept,
// and never a change of meaning: over every examples/ folder, loadConfig reads the same DesiredState.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import { afterAll, expect, test } from 'vitest';
import { commentsOf, FLOW_WIDTH, formatConfigFolder, formatConfigText } from '../../src/config/files/format.js';
import { loadConfiguration } from '../../src/providers/index.js';

const schema = JSON.parse(readFileSync('schema/config.schema.json', 'utf8')) as Record<string, unknown> & {
  properties: Record<string, unknown>;
  $defs: Record<string, { properties: Record<string, unknown> }>;
};
const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-fmt-'));
  temps.push(dir);
  return dir;
};

const format = (text: string): string => {
  const outcome = formatConfigText(text, schema);
  if (!outcome.ok) throw new Error(outcome.reason);
  return outcome.text;
};

/** The keys of `map` in the order the schema declares them (read from the schema, never written here). */
const declaredOrder = (keys: string[], def: string) => Object.keys(schema.$defs[def]!.properties).filter((k) => keys.includes(k));

test('keys follow the order the schema declares, at the top level and inside each kind; unknown keys (local names) keep theirs', () => {
  const out = format(`gateways:
  zeta:
    tokens: { ci: { scopes: [run] } }
    credentials: [openai]
    slug: zeta
    name: Zeta
    project: core
  alpha:
    project: core
    name: Alpha
projects:
  core: { description: Core }
version: 1
`);
  const value = parse(out) as { gateways: Record<string, Record<string, unknown>> };
  expect(Object.keys(value)).toEqual(Object.keys(schema.properties).filter((k) => ['gateways', 'projects', 'version'].includes(k)));
  expect(Object.keys(value.gateways)).toEqual(['zeta', 'alpha']);
  const zeta = Object.keys(value.gateways.zeta!);
  expect(zeta).toEqual(declaredOrder(zeta, 'gateway'));
  expect(zeta).not.toEqual(['tokens', 'credentials', 'slug', 'name', 'project']);
});

test('a list of plain values is one flow line when it fits in 80 columns, a block list otherwise; a flow map stays one when it fits', () => {
  const short = ['payments', 'stripe'];
  const long = Array.from({ length: 12 }, (_, i) => `tag-number-${i}`);
  const out = format(`projects:
  p:
    records:
      r:
        tags:
          - ${short.join('\n          - ')}
        lifecycle: { ignoreChanges: [ tags ] }
      s:
        tags: [${long.join(', ')}]
        value: { env: S }
`);
  expect(out).toContain('        tags: [payments, stripe]\n');
  expect(out).toContain('        lifecycle: { ignoreChanges: [tags] }\n');
  expect(out).toContain(`        tags:\n${long.map((t) => `          - ${t}\n`).join('')}`);
  expect(out).toContain('        value: { env: S }\n');
  for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(FLOW_WIDTH);
  // A flow map too long for one line becomes a block map.
  const wide = format(`credentials:\n  c: { provider: openai, label: ${'x'.repeat(60)}, secret: { env: KEY } }\n`);
  expect(wide).toBe(`credentials:\n  c:\n    provider: openai\n    label: ${'x'.repeat(60)}\n    secret: { env: KEY }\n`);
});

// The parser keeps no record of a comment written after `key:` on its line when a block follows: it goes below it.
test('every comment is kept, moving with its key; the file header stays on top; a blank line separates top-level sections', () => {
  const text = `# header: the file's first comment
gateways: # all gateways
  main:
    # the credentials it may use
    credentials:
      - openai # the only one
    project: core
    # the name people read
    name: Main # trailing
projects:
  core:
    description: Core
version: 1
account: acc
`;
  const out = format(text);
  expect(out).toBe(`# header: the file's first comment
version: 1
account: acc

projects:
  core:
    description: Core

gateways:
  # all gateways
  main:
    project: core
    # the name people read
    name: Main # trailing
    # the credentials it may use
    credentials:
      - openai # the only one
`);
  expect(commentsOf(out).sort()).toEqual(commentsOf(text).sort());
});

test('a comment inside a flow list is kept, on its line: the list is written as a block', () => {
  const text = 'projects:\n  p:\n    records:\n      r:\n        tags: [a, # why b\n          b]\n';
  const out = format(text);
  expect(out).toBe('projects:\n  p:\n    records:\n      r:\n        tags:\n          - a # why b\n          - b\n');
  expect(commentsOf(out)).toEqual(['# why b']);
});

test('a file with no value (empty, or only comments) is left as it is', () => {
  expect(format('')).toBe('');
  expect(format('# nothing here yet\n')).toBe('# nothing here yet\n');
});

test('an alias that reordering would put above its anchor: the keys keep their order, the value is unchanged', () => {
  const text = `gateways:
  main:
    settings: { requestsPerMinute: 10 }
    credentials: &creds [openai]
    project: core
  other:
    project: core
    credentials: *creds
`;
  const out = format(text);
  expect(parse(out)).toEqual(parse(text));
  expect(format(out)).toBe(out);
});

/** Every examples/ folder that is a configuration (examples/sdk is a program). */
const exampleFolders = readdirSync('examples').filter((name) => readdirSync(join('examples', name)).some((f) => /\.ya?ml$/.test(f)));
const examplesVariables: Record<string, { variables: { name?: string; value?: string; file?: string }[] }> = {
  'multi-env': { variables: [{ file: 'examples/multi-env/vars/prod.yaml' }] },
};

test.each(exampleFolders)(
  'examples/%s: fmt keeps the DesiredState and every comment, and fmt of its output changes nothing',
  async (name) => {
    const copy = join(tempDir(), name);
    cpSync(join('examples', name), copy, { recursive: true });
    const { files, diagnostics } = await formatConfigFolder(copy, (p) => p, schema);
    expect(diagnostics).toEqual([]);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(commentsOf(file.formatted).sort()).toEqual(commentsOf(file.text).sort());
      writeFileSync(file.path, file.formatted);
    }
    const options = {
      variables: examplesVariables[name]?.variables ?? [{ name: 'account', value: '00000000-0000-4000-8000-000000000001' }],
      env: {},
    };
    const before = await loadConfiguration(join('examples', name), options as never);
    const after = await loadConfiguration(copy, options as never);
    expect(before.diagnostics).toEqual([]);
    expect(after.diagnostics).toEqual([]);
    // Everything but where each value is written (the folder, and lines that moved).
    const placeless = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value), (key, v: unknown) =>
        key === 'dir' ? 'DIR' : v && typeof v === 'object' && 'line' in v && 'col' in v && 'file' in v ? 'PLACE' : v,
      );
    expect(placeless(after.desired)).toEqual(placeless(before.desired));
    const again = await formatConfigFolder(copy, (p) => p, schema);
    for (const file of again.files) expect(file.formatted).toBe(file.text);
  },
);

/** Every configuration folder under examples/: the examples and the modules they call. */
const canonicalFolders = exampleFolders.flatMap((name) => {
  const modules = join('examples', name, 'modules');
  return [join('examples', name), ...(existsSync(modules) ? readdirSync(modules).map((m) => join(modules, m)) : [])];
});

test.each(canonicalFolders)('%s is in canonical form already: `cplane fmt --check` lists no file', async (folder) => {
  const { files, diagnostics } = await formatConfigFolder(folder, (p) => p, schema);
  expect(diagnostics).toEqual([]);
  expect(files.filter((file) => file.formatted !== file.text).map((file) => file.path)).toEqual([]);
});

const entryKeys = ['name', 'description', 'lifecycle'];
test('property: any order of keys, any flow or block style and any comments give a canonical form that is stable and means the same', () => {
  const scalar = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}$/);
  const list = fc.array(scalar, { minLength: 0, maxLength: 9 });
  const record = fc.record({ tags: list, format: scalar, rotationIntervalDays: fc.integer({ min: 1, max: 999 }) }, { requiredKeys: [] });
  const project = fc.record(
    {
      name: scalar,
      description: scalar,
      records: fc.dictionary(scalar, record, { maxKeys: 3 }),
      lifecycle: fc.record({ preventDestroy: fc.boolean() }),
    },
    { requiredKeys: [] },
  );
  const config = fc.record(
    { version: fc.constant(1), account: scalar, projects: fc.dictionary(scalar, project, { minKeys: 1, maxKeys: 3 }) },
    { requiredKeys: ['projects'] },
  );
  fc.assert(
    fc.property(config, fc.infiniteStream(fc.boolean()), fc.infiniteStream(fc.boolean()), (value, flows, commented) => {
      // Written with shuffled keys (reversed), each collection in a random style, and random comments above keys.
      const comments: string[] = [];
      const write = (node: unknown, indent: string): string => {
        if (Array.isArray(node))
          return flows.next().value || node.length === 0
            ? ` [${node.join(', ')}]\n`
            : `\n${node.map((v) => `${indent}- ${String(v)}\n`).join('')}`;
        if (node && typeof node === 'object') {
          const entries = Object.entries(node).reverse();
          if (entries.length === 0) return ' {}\n';
          return `\n${entries
            .map(([k, v]) => {
              const comment = commented.next().value ? `${indent}# note ${comments.push(k)}\n` : '';
              return `${comment}${indent}${k}:${write(v, `${indent}  `)}`;
            })
            .join('')}`;
        }
        return ` ${String(node)}\n`;
      };
      const text = write(value, '').slice(1);
      const out = format(text);
      expect(parse(out)).toEqual(parse(text));
      expect(commentsOf(out).sort()).toEqual(commentsOf(text).sort());
      expect(format(out)).toBe(out);
      void entryKeys;
    }),
    { numRuns: 150 },
  );
});
