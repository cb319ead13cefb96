#!/usr/bin/env node
/**
 * The docs' tables that list the kinds (the top-level keys that declare resources, the addresses, the resources
 * and the paths `ignoreChanges` may name) are generated from the kind registry (src/providers/index.ts), so a new
 * kind, key or field appears in them with no edit of the docs; the table of a plan's notices (docs/planning.md) is
 * generated from planner/checks/notices.ts; the layer list of docs/architecture.md from eslint.config.js's `layers`,
 * and the README's commands from src/cli/commands/index.ts. So is
 * one source file, src/api/routes.ts, from src/api/operations.ts. Each table sits in a Markdown file between
 *
 *   <!-- generated: NAME -->
 *   ...
 *   <!-- end generated -->
 *
 * and this script compares what is there with what the registry generates: it exits 1 naming each stale or
 * missing table (`npm run lint` runs it), or rewrites them with `--write` (`npm run schemas` runs it).
 *
 * The lint runs plain Node, which cannot load the TypeScript registry: the script bundles it in memory with
 * rolldown (the bundler the build uses; dependencies stay outside) and imports the result from a file under
 * node_modules/.cache, where the dependencies resolve. It needs `src/generated/` (`npm install` builds it).
 *
 *   node scripts/docs-tables.mjs [--write] [--docs DIR]   # DIR: the folder holding README.md and docs/ (default: this repository)
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A TypeScript module of src/ (the kind registry, the table of notices), bundled from its source. */
async function loadModule(path) {
  const bundle = await rolldown({
    cwd: root,
    input: join(root, path),
    platform: 'node',
    external: (id) => !id.startsWith('.') && !isAbsolute(id),
    logLevel: 'warn',
  });
  const { output } = await bundle.generate({ format: 'esm' });
  const dir = join(root, 'node_modules/.cache/cplane');
  mkdirSync(dir, { recursive: true });
  // One file per process, so two runs at once never import each other's half-written bundle.
  const file = join(dir, `${path.replace(/\W+/g, '-')}-${process.pid}.mjs`);
  writeFileSync(file, output[0].code);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(file, { force: true });
  }
}

/** A text for a table cell: what holds a `<placeholder>` as code (so Markdown does not take it for HTML), `|` escaped. */
const cell = (text) => text.replace(/([^\s`]*<[^>\s]+>[^\s`]*?)([.,;:]?)(?=\s|$)/g, '`$1`$2').replaceAll('|', '\\|');
const code = (text) => `\`${text}\``;
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---|').join('')}`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');

/** The table of notices (docs/planning.md), from planner/checks/notices.ts: one row per check, in the table's order. */
export function noticesTable(noticeChecks) {
  const shown = (c) => [c.shownBy.plan ? 'plan' : '', c.shownBy.drift ? 'drift' : ''].filter(Boolean).join(', ');
  const keys = (c) =>
    Object.entries(c.dataKeys)
      .map(([key, meaning]) => `${code(key)}: ${cell(meaning)}`)
      .join('; ') || '(none)';
  return table(
    ['Code', 'Severity', 'Shown by', 'Heading', '`data`'],
    noticeChecks.map((c) => [code(c.code), c.severity, shown(c), cell(c.heading), keys(c)]),
  );
}

/**
 * The layers' prose (docs/architecture.md), from eslint.config.js's `layers`: a line per folder, bottom first, with
 * the folders it may import (the ground floor, errors.ts, paint.ts and the others at the bottom, goes without saying).
 */
export function layersProse(layers) {
  return Object.entries(layers)
    .map(
      ([folder, below]) =>
        `- \`${folder}/\` imports ${below.length === 0 ? 'only the ground floor' : below.map((f) => `\`${f}/\``).join(', ')}`,
    )
    .join('\n');
}

/** The README's table of commands, from src/cli/commands/index.ts: each command's words, usage and summary. */
export function commandsTable(commands) {
  return table(
    ['Command', 'What it does'],
    commands.map((c) => [code(`cplane ${c.name.join(' ')}`), `${cell(c.summary)}${c.summary.endsWith('.') ? '' : '.'}`]),
  );
}

/** The tables, by name, from the registry's configuration blocks and the table of notices. */
export function generateTables({ kindBlocks, nestingOrder, noticeChecks, layers, commands }) {
  const blockOf = new Map(kindBlocks.map((b) => [b.kind, b]));
  const parentOf = (block) => (block.parent ? blockOf.get(block.parent.kind) : undefined);
  // The placeholder of an entry's local name: its key in the singular (`tokens` -> `<token>`).
  const placeholder = (block) => `<${block.key.split('.').at(-1).replace(/s$/, '')}>`;
  const segments = (block) => [...(parentOf(block) ? segments(parentOf(block)) : []), ...(block.single ? [] : [placeholder(block)])];
  const declaredAt = (block) => {
    const at = `${parentOf(block) ? `${declaredAt(parentOf(block))}.` : ''}${block.key}`;
    return block.single ? at : block.list ? `${at}: [${placeholder(block)}]` : `${at}.${placeholder(block)}`;
  };
  // A list block's entries are names in its parent's schema, which describes the list.
  const schemaOf = (block) =>
    block.list ? block.key.split('.').reduce((schema, key) => schema?.properties?.[key], parentOf(block).schema) : block.schema;
  const inNestingOrder = nestingOrder.map((kind) => blockOf.get(kind));
  return {
    ...(layers ? { layers: layersProse(layers) } : {}),
    ...(commands ? { 'readme-commands': commandsTable(commands) } : {}),
    'plan-notices': noticesTable(noticeChecks),
    'kinds-top-level-keys': table(
      ['Key', 'Type', 'Meaning'],
      kindBlocks.filter((b) => !b.parent).map((b) => [code(b.key), 'map', cell(b.mapDescription ?? '')]),
    ),
    'kinds-addresses': table(
      ['Kind', 'Address', 'Declared at'],
      inNestingOrder.map((b) => [code(b.kind), code(`${b.kind}.${segments(b).join('/')}`), code(declaredAt(b))]),
    ),
    'kinds-resources': table(
      ['Kind', 'What it is'],
      inNestingOrder.map((b) => [
        code(b.kind),
        b.list
          ? `${cell(schemaOf(b).description)} One ${b.noun} per name in the ${b.parent.kind}'s ${code(b.key)}.`
          : cell(schemaOf(b).description ?? b.noun),
      ]),
    ),
    'kinds-ignore-changes': table(
      ['Kind', 'Paths'],
      inNestingOrder.flatMap((b) => {
        const items = b.schema.properties?.lifecycle?.properties?.ignoreChanges?.items;
        return items ? [[code(b.kind), items.enum ? items.enum.map(code).join(', ') : cell(items.description)]] : [];
      }),
    ),
  };
}

/**
 * src/api/routes.ts, the light route table the client loads without a schema library: each operation's route
 * fields (route.ts `routeFields`), picked from its one entry in src/api/operations.ts.
 */
export async function routesSource({ operations, routeFields }) {
  const entries = Object.entries(operations).map(([name, spec]) => {
    const fields = routeFields.filter((f) => spec[f] !== undefined).map((f) => `${f}: ${JSON.stringify(spec[f])}`);
    return `  ${name}: { ${fields.join(', ')} },`;
  });
  const text = `// Generated from operations.ts by scripts/docs-tables.mjs (npm run schemas): edit the operation there, not here.
// The light route table: plain data with no schema library, so the client and the CLI load it in no time.
import type { Route } from './route.js';

export { fillPath, type HttpMethod, type Identity, type Route } from './route.js';

export const routes = {
${entries.join('\n')}
} as const satisfies Record<string, Route>;

export type Routes = typeof routes;
export type RouteName = keyof Routes;

export const routeNames = Object.keys(routes) as RouteName[];
`;
  return prettier.format(text, { ...(await prettier.resolveConfig(join(root, 'src/api/routes.ts'))), parser: 'typescript' });
}

/** Each stale generated source file (path relative to `dir` -> its text) as a line; with `write`, rewritten. */
export function checkFiles(dir, files, { write = false } = {}) {
  const problems = [];
  for (const [file, wanted] of Object.entries(files)) {
    let text = '';
    try {
      text = readFileSync(join(dir, file), 'utf8');
    } catch {
      // missing: stale
    }
    if (text === wanted) continue;
    if (write) writeFileSync(join(dir, file), wanted);
    else problems.push(`${file}: not what its source generates: run npm run schemas`);
  }
  return problems;
}

const marked = /(<!-- generated: ([a-z-]+) -->\n)([\s\S]*?)(\n<!-- end generated -->)/g;

/** The Markdown files that may hold tables: README.md and docs/*.md under `dir`. */
function markdownFiles(dir) {
  return [
    'README.md',
    ...readdirSync(join(dir, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
}

/** Each stale, unknown or missing table as a line to print; with `write`, the stale ones are rewritten. */
export function checkTables(dir, tables, { write = false } = {}) {
  const problems = [];
  const found = new Set();
  for (const file of markdownFiles(dir)) {
    const text = readFileSync(join(dir, file), 'utf8');
    const updated = text.replace(marked, (whole, open, name, body, close) => {
      found.add(name);
      const wanted = tables[name];
      if (wanted === undefined) {
        problems.push(`${file}: no table is named "${name}" (the names are ${Object.keys(tables).join(', ')})`);
        return whole;
      }
      const expected = `\n${wanted}\n`;
      if (body === expected) return whole;
      if (!write) problems.push(`${file}: the table "${name}" is not what the kind registry generates: run npm run schemas`);
      return `${open}${expected}${close}`;
    });
    if (write && updated !== text) writeFileSync(join(dir, file), updated);
  }
  for (const name of Object.keys(tables))
    if (!found.has(name))
      problems.push(
        `the table "${name}" is in no Markdown file: put <!-- generated: ${name} --> and <!-- end generated --> where it belongs, then run npm run schemas`,
      );
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const docsAt = args.indexOf('--docs');
  const dir = docsAt >= 0 ? args[docsAt + 1] : root;
  const load = (path) =>
    loadModule(path).catch((error) => {
      console.error(
        `scripts/docs-tables.mjs: cannot load ${path}: ${error.message}\nIf src/generated/ is missing, run npm run build first.`,
      );
      process.exit(2);
    });
  const write = args.includes('--write');
  // The generated sources first: the registry imports routes.ts.
  const problems = checkFiles(root, { 'src/api/routes.ts': await routesSource(await load('src/api/operations.ts')) }, { write });
  const [registry, notices, cli, eslint] = await Promise.all([
    load('src/providers/index.ts'),
    load('src/planner/checks/notices.ts'),
    load('src/cli/commands/index.ts'),
    import(pathToFileURL(join(root, 'eslint.config.js')).href),
  ]);
  const sources = { ...registry, noticeChecks: notices.noticeChecks, layers: eslint.layers, commands: cli.commands };
  problems.push(...checkTables(dir, generateTables(sources), { write }));
  for (const line of problems) console.error(line);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
