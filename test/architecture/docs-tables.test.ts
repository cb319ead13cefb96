/**
 * The docs' tables of kinds (top-level keys, addresses, resources, ignorable paths) are generated from the kind
 * registry by scripts/docs-tables.mjs, which `npm run lint` runs as a check and `npm run schemas` with `--write`.
 * These tests run that script as the lint does, on the repository and on a copy of its docs with a stale table.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { checkFiles, checkTables, generateTables, routesSource } from '../../scripts/docs-tables.mjs';
import { operations, routeFields } from '../../src/api/operations.js';
import { noticeChecks } from '../../src/planner/index.js';
import { kindBlocks, kindOrder, nestingOrder } from '../../src/providers/index.js';
import { commands } from '../../src/cli/commands/index.js';
// @ts-expect-error: a plain ESM script without type declarations
import { layers } from '../../eslint.config.js';

const run = promisify(execFile);
/** What the script generates from: the registry, the notices, the CLI's commands and the lint's layers. */
const sources = { kindBlocks, nestingOrder, noticeChecks, kindOrder, layers, commands };
const copy = mkdtempSync(join(tmpdir(), 'cplane-docs-tables-'));
afterAll(() => rmSync(copy, { recursive: true, force: true }));
cpSync('README.md', join(copy, 'README.md'));
cpSync('docs', join(copy, 'docs'), { recursive: true });

/** The check as `npm run lint` runs it, on `dir`: its exit code and what it printed. */
async function check(dir: string, ...flags: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, ['scripts/docs-tables.mjs', '--docs', dir, ...flags]);
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

test('npm run lint runs the check, and npm run schemas writes the tables after the schemas and their compiled validators', () => {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
  expect(scripts.lint!.split(' && ')).toContain('node scripts/docs-tables.mjs');
  // The schema files first, then the validators compiled from them (so a new field meets "Unknown key" nowhere), then the docs.
  expect(scripts.schemas!.split(' && ')).toEqual([
    'CPLANE_WRITE_SCHEMAS=1 vitest run test/architecture/schema-kinds.test.ts',
    'node scripts/compile-schemas.mjs',
    'node scripts/docs-tables.mjs --write',
  ]);
});

test('the committed docs hold every table as the registry generates it (run npm run schemas)', () => {
  expect(checkTables('.', generateTables(sources))).toEqual([]);
});

test('every kind is in the addresses and resources tables', () => {
  const tables = generateTables(sources);
  for (const kind of kindOrder) {
    expect(tables['kinds-addresses'], kind).toContain(`| \`${kind}\` | \`${kind}.`);
    expect(tables['kinds-resources'], kind).toContain(`| \`${kind}\` |`);
  }
});

test('a stale table fails the check with its file and name, and --write brings it back', async () => {
  const file = join(copy, 'docs/configuration.md');
  const fresh = readFileSync(file, 'utf8');
  // A kind's row removed, as a table written by hand and forgotten would be.
  writeFileSync(file, fresh.replace(/^\| `gateway_token` \| `gateway_token\..*\n/m, ''));
  const stale = await check(copy);
  expect(stale.code).toBe(1);
  expect(stale.stderr).toContain(
    'docs/configuration.md: the table "kinds-addresses" is not what the kind registry generates: run npm run schemas',
  );
  expect((await check(copy, '--write')).code).toBe(0);
  expect(readFileSync(file, 'utf8')).toBe(fresh);
  expect(await check(copy)).toEqual({ code: 0, stderr: '' });
});

test('a table whose markers are gone, or a marker no table has, is named', () => {
  const tables = generateTables(sources);
  const dir = mkdtempSync(join(tmpdir(), 'cplane-docs-markers-'));
  try {
    cpSync(copy, dir, { recursive: true });
    const file = join(dir, 'docs/configuration.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('<!-- generated: kinds-resources -->', '<!-- generated: kinds-widgets -->'));
    expect(checkTables(dir, tables)).toEqual([
      'docs/configuration.md: no table is named "kinds-widgets" (the names are layers, readme-commands, plan-notices, kinds-top-level-keys, kinds-addresses, kinds-resources, kinds-ignore-changes)',
      'the table "kinds-resources" is in no Markdown file: put <!-- generated: kinds-resources --> and <!-- end generated --> where it belongs, then run npm run schemas',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a new kind appears in the tables with no edit of the docs', () => {
  const project = kindBlocks.find((b) => b.kind === 'project')!;
  const widget = {
    ...project,
    kind: 'widget',
    key: 'widgets',
    parent: { kind: 'project', attribute: 'project' },
    schema: { description: 'A widget of a project.', type: 'object', properties: {} },
  };
  const tables = generateTables({ kindBlocks: [...kindBlocks, widget], nestingOrder: [...nestingOrder, 'widget'], noticeChecks });
  expect(tables['kinds-addresses']).toContain('| `widget` | `widget.<project>/<widget>` | `projects.<project>.widgets.<widget>` |');
  expect(tables['kinds-resources']).toContain('| `widget` | A widget of a project. |');
});

test('src/api/routes.ts is generated from the operations; a stale copy is named, and --write brings it back', async () => {
  const wanted = await routesSource({ operations, routeFields });
  expect(readFileSync('src/api/routes.ts', 'utf8')).toBe(wanted);
  const dir = mkdtempSync(join(tmpdir(), 'cplane-routes-'));
  try {
    mkdirSync(join(dir, 'src/api'), { recursive: true });
    writeFileSync(join(dir, 'src/api/routes.ts'), wanted.replace("path: '/accounts'", "path: '/accountz'"));
    const files = { 'src/api/routes.ts': wanted };
    expect(checkFiles(dir, files)).toEqual(['src/api/routes.ts: not what its source generates: run npm run schemas']);
    expect(checkFiles(dir, files, { write: true })).toEqual([]);
    expect(readFileSync(join(dir, 'src/api/routes.ts'), 'utf8')).toBe(wanted);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.each([
  ['docs/architecture.md', 'layers', (text: string) => text.replace('- `config/` imports `plan-model/`', '- `config/` imports nothing')],
  ['README.md', 'readme-commands', (text: string) => text.replace(/^\| `cplane fmt` \|.*\n/m, '')],
])('a stale generated %s (%s) fails the lint, naming the file; --write brings it back', async (file, name, edit) => {
  const dir = mkdtempSync(join(tmpdir(), 'cplane-docs-stale-'));
  try {
    cpSync(copy, dir, { recursive: true });
    const fresh = readFileSync(join(dir, file), 'utf8');
    const stale = edit(fresh);
    expect(stale).not.toBe(fresh);
    writeFileSync(join(dir, file), stale);
    const failed = await check(dir);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`${file}: the table "${name}" is not what the kind registry generates: run npm run schemas`);
    expect((await check(dir, '--write')).code).toBe(0);
    expect(readFileSync(join(dir, file), 'utf8')).toBe(fresh);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
