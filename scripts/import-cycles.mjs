#!/usr/bin/env node
/**
 * Finds import cycles in src/, between files and between folders (the layers
 * of docs/architecture.md). A small script rather than madge or dpdm: those
 * pull in a TypeScript parser stack and a resolver of their own, while our
 * imports are plain relative ESM specifiers (`./x.js`, `../planner/index.js`),
 * so reading them with one regular expression is exact and takes milliseconds.
 * Type-only imports count: a cycle of types is still a cycle between layers.
 * Dynamic `import('./x.js')` counts too: a lazily loaded module is still a
 * dependency, only a later one (src/cli/commands/index.ts loads every command so).
 *
 *   node scripts/import-cycles.mjs     # prints the cycles, exits 1 when there is one
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A static import or re-export (`import ... from './x.js'`, `export ... from`), or a dynamic `import('./x.js')`. */
const importPattern = /^\s*(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/gms;

/** The relative specifiers `text` imports, statically or with import(). */
export function importSpecifiers(text) {
  return [...text.matchAll(importPattern)].map((match) => match[1] ?? match[2]);
}

/** Every .ts/.tsx file under `dir`, as paths relative to `root`. */
function sourceFiles(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** File -> the files it imports (relative specifiers only, `.js` mapped back to `.ts` or `.tsx`). */
export function importGraph(root, dir = 'src') {
  const files = sourceFiles(root, dir);
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = new Set();
    for (const specifier of importSpecifiers(text)) {
      const base = relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`].find((candidate) => known.has(candidate));
      if (target) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The folder a file belongs to: `src/planner/stages/order.ts` -> `src/planner`; a file directly in src/ is its own layer. */
export function folderOf(file) {
  const parts = file.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : file;
}

/** Strongly connected components with more than one node, or a node importing itself (Tarjan). */
export function cycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The folder graph: an edge from one folder to another when any file of the first imports a file of the second. */
export function folderGraph(files) {
  const folders = new Map();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const target of targets) if (folderOf(target) !== from) folders.get(from).add(folderOf(target));
  }
  return folders;
}

/** Cycles in src/ and in the SDK package's sources (packages/sdk/src, one folder of its own), between files and between folders. */
export function findCycles(root) {
  const files = new Map([...importGraph(root), ...importGraph(root, 'packages/sdk/src')]);
  const named = (list) => list.map((cycle) => cycle.join(' <-> '));
  return { files: named(cycles(files)), folders: named(cycles(folderGraph(files))) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const found = findCycles(root);
  for (const cycle of found.folders) console.log(`folder cycle: ${cycle}`);
  for (const cycle of found.files) console.log(`file cycle: ${cycle}`);
  if (found.files.length + found.folders.length > 0) process.exit(1);
  console.log('no import cycles in src/ and packages/sdk/src/');
}
