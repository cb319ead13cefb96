/**
 * `cplane fmt`'s canonical form of one configuration file, made on the `yaml` library's Document, so every
 * comment stays attached to the node it was written next to:
 * - keys in the order the JSON Schema declares them (schema/config.schema.json with the kinds' entry schemas):
 *   a key the schema does not name (a local name, a variable's name, a default's keys) keeps its place after
 *   the ones it names;
 * - two-space indentation, lists indented under their key, no folding of long strings;
 * - a list of plain values in flow style (`tags: [payments, stripe]`) when it fits in FLOW_WIDTH columns,
 *   in block style otherwise; a `{ ... }` map stays one when it fits, and becomes a block map when not;
 * - one blank line before each top-level key that holds a map or a list (the style of examples/).
 * The result is checked before it is returned: it parses to the same value and holds every comment, so
 * fmt can never change what a configuration means (an alias moved above its anchor would: then only the
 * layout is made canonical and the keys keep their order).
 */
import { Document, isMap, isScalar, isSeq, Lexer, parseDocument, visit, YAMLSeq, type Pair, type YAMLMap } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { listConfigFiles } from './config-folder.js';
import { sortDiagnostics } from '../diagnostics.js';
import { readSourceFile } from './source-file.js';
import type { JsonSchema } from '../blocks/kind-block.js';
import type { Diagnostic } from '../types.js';

/** A flow collection is kept on one line only when that line, indentation and key included, fits in this many columns. */
export const FLOW_WIDTH = 80;

const TO_STRING = { indent: 2, indentSeq: true, lineWidth: 0, flowCollectionPadding: true } as const;
/** Duplicate keys are found before (readSourceFile): the parser's own check is quadratic in a map's size. */
const PARSE = { uniqueKeys: false } as const;

type Schema = JsonSchema & {
  properties?: Record<string, JsonSchema>;
  additionalProperties?: unknown;
  items?: unknown;
  $ref?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** The schema `schema` means, following a local `$ref` (`#/$defs/gateway`). */
function resolveRef(root: Schema, schema: unknown): Schema | undefined {
  let current = schema as Schema | undefined;
  for (let hops = 0; current?.$ref !== undefined && hops < 32; hops++) {
    const path = current.$ref.replace(/^#\//, '').split('/');
    current = path.reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], root) as Schema | undefined;
  }
  return current;
}

/** The branches a value may match: the schema itself and its anyOf/oneOf/allOf alternatives, resolved. */
function branches(root: Schema, schema: Schema | undefined): Schema[] {
  if (!schema) return [];
  const alternatives = [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return [schema, ...alternatives.flatMap((s) => branches(root, resolveRef(root, s)))];
}

/** The keys a map's schema declares, in the order it declares them. */
function keyOrder(root: Schema, schema: Schema | undefined): string[] {
  return [...new Set(branches(root, schema).flatMap((s) => Object.keys(s.properties ?? {})))];
}

/** The schema of the value under `key` of a map described by `schema`. */
function propertySchema(root: Schema, schema: Schema | undefined, key: string): Schema | undefined {
  for (const branch of branches(root, schema)) {
    if (branch.properties && key in branch.properties) return resolveRef(root, branch.properties[key]);
  }
  for (const branch of branches(root, schema)) {
    if (typeof branch.additionalProperties === 'object') return resolveRef(root, branch.additionalProperties);
  }
  return undefined;
}

function itemSchema(root: Schema, schema: Schema | undefined): Schema | undefined {
  const branch = branches(root, schema).find((b) => typeof b.items === 'object');
  return branch ? resolveRef(root, branch.items) : undefined;
}

const keyText = (pair: Pair): string => (isScalar(pair.key) ? String(pair.key.value) : '');

/** The keys of a map sorted into the schema's order; keys it does not declare follow, in their own order. */
function sortKeys(map: YAMLMap, order: readonly string[], top: boolean): void {
  const rank = (pair: Pair) => {
    const at = order.indexOf(keyText(pair));
    return at < 0 ? order.length : at;
  };
  const first = map.items[0];
  // Array.prototype.sort is stable: undeclared keys keep their relative order.
  map.items.sort((a, b) => rank(a) - rank(b));
  const newFirst = map.items[0];
  if (!first || !isScalar(first.key) || newFirst === first || !newFirst || !isScalar(newFirst.key)) return;
  if (top) {
    // The comment above a file's first key is the file's header: it stays on top.
    newFirst.key.commentBefore = joinComments(first.key.commentBefore, newFirst.key.commentBefore);
    first.key.commentBefore = undefined;
  } else if (map.commentBefore) {
    // The parser gives a comment between `parent:` and the first key to the map; it is about that key, and goes with it.
    first.key.commentBefore = joinComments(map.commentBefore, first.key.commentBefore);
    map.commentBefore = undefined;
  }
}

const joinComments = (a: string | null | undefined, b: string | null | undefined): string | undefined =>
  [a, b].filter((c): c is string => Boolean(c)).join('\n') || undefined;

/**
 * Whether a collection may be written on one line: plain values (or, in a map already written as `{ ... }`,
 * lists and maps of them), with no comment, anchor or blank line between them.
 */
function simple(node: unknown, nested: boolean): boolean {
  if (isScalar(node)) return !node.comment && !node.commentBefore && !node.anchor && !node.spaceBefore;
  if (!nested || !(isSeq(node) || isMap(node)) || node.comment || node.commentBefore || node.anchor || node.spaceBefore) return false;
  return flowItems(node).every((item) => simple(item, true));
}

const flowItems = (node: YAMLSeq | YAMLMap): unknown[] => (isSeq(node) ? node.items : node.items.flatMap((pair) => [pair.key, pair.value]));

/** The collection written as one flow line (`[a, b]`, `{ a: 1 }`), or undefined when it takes more than one. */
function flowLine(node: YAMLSeq | YAMLMap): string | undefined {
  const alone = new Document(null);
  // The copy keeps the lists' tight toString (clone copies own properties).
  alone.contents = node.clone() as YAMLSeq | YAMLMap;
  (alone.contents as YAMLSeq | YAMLMap).flow = true;
  const text = alone.toString(TO_STRING).trimEnd();
  return text.includes('\n') ? undefined : text;
}

/**
 * The `yaml` library pads both kinds of flow collection alike; the examples write maps padded
 * (`{ env: KEY }`) and lists tight (`[a, b]`), as Prettier does. A list is therefore written with the
 * padding of its stringify context (a field the library's StringifyContext type declares) cleared.
 */
function tight(seq: YAMLSeq): YAMLSeq {
  const own = YAMLSeq.prototype.toString;
  seq.toString = function (this: YAMLSeq, ctx, onComment, onChompKeep) {
    return own.call(this, ctx && { ...ctx, flowCollectionPadding: '' }, onComment, onChompKeep);
  };
  return seq;
}

/**
 * Flow or block, for a collection whose first character would be at column `start`: a list of plain values,
 * or a map already written as `{ ... }` (with plain values, lists and maps), is one line when it fits;
 * anything else, and anything that does not fit, is a block.
 */
function chooseFlow(node: YAMLSeq | YAMLMap, start: number): void {
  const candidate = isSeq(node)
    ? node.items.every((item) => simple(item, false))
    : node.flow === true && node.items.every((pair) => simple(pair.key, false) && simple(pair.value, true));
  const line = candidate ? flowLine(node) : undefined;
  node.flow = line !== undefined && start + line.length <= FLOW_WIDTH;
}

/**
 * Sorts every map's keys into the schema's order and chooses each collection's style. `indent` is the column a
 * block collection's lines start at, `start` the column its first character would be at when written inline
 * (after `key: ` or `- `).
 */
function layout(doc: Document, root: Schema, reorder: boolean): void {
  const walk = (node: unknown, schema: Schema | undefined, indent: number, start: number, inFlow: boolean): void => {
    if (!isMap(node) && !isSeq(node)) return;
    if (isMap(node) && reorder) sortKeys(node, keyOrder(root, schema), node === doc.contents);
    if (inFlow) node.flow = true;
    else if (node !== doc.contents) chooseFlow(node, start);
    const flow = inFlow || node.flow === true;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyText(pair);
        walk(pair.value, propertySchema(root, schema, key), indent + 2, indent + key.length + 2, flow);
      }
    } else {
      const items = itemSchema(root, schema);
      for (const item of node.items) walk(item, items, indent + 2, indent + 2, flow);
    }
  };
  walk(doc.contents, root, 0, 0, false);
}

/** One blank line before each top-level key holding a collection (not the first); none before a plain value. */
function spaceSections(doc: Document): void {
  if (!isMap(doc.contents)) return;
  doc.contents.items.forEach((pair, i) => {
    if (!isScalar(pair.key)) return;
    pair.key.spaceBefore = i > 0 && (isMap(pair.value) || isSeq(pair.value)) ? true : undefined;
  });
}

/**
 * The text of every comment of a file, in order, read from its tokens (not from the parsed document, so a
 * comment the parser would not attach anywhere is counted too).
 */
export function commentsOf(text: string): string[] {
  return [...new Lexer().lex(text)].filter((token) => token.startsWith('#')).map((token) => token.trim());
}

export type FormatOutcome = { ok: true; text: string } | { ok: false; reason: string };

/**
 * The canonical form of a configuration file's text (already checked to parse: see readSourceFile).
 * `schema` is the configuration schema, whose declared property order is the key order.
 */
export function formatConfigText(text: string, schema: JsonSchema): FormatOutcome {
  const source = parseDocument(text, PARSE);
  // A file with no value (empty, or only comments) has nothing to lay out; written back it would become `null`.
  if (source.contents === null) return { ok: true, text };
  const before = source.toJS({ maxAliasCount: -1 }) as unknown;
  const comments = commentsOf(text).sort();
  const attempt = (reorder: boolean) => {
    const doc = reorder ? source : parseDocument(text, PARSE);
    visit(doc, { Seq: (_, seq) => void tight(seq) });
    layout(doc, schema as Schema, reorder);
    spaceSections(doc);
    return doc.toString(TO_STRING);
  };
  const faithful = (out: string) => {
    const doc = parseDocument(out, PARSE);
    return (
      doc.errors.length === 0 &&
      isDeepStrictEqual(doc.toJS({ maxAliasCount: -1 }), before) &&
      isDeepStrictEqual(commentsOf(out).sort(), comments)
    );
  };
  for (const reorder of [true, false]) {
    const out = attempt(reorder);
    if (faithful(out)) return { ok: true, text: out };
  }
  return { ok: false, reason: 'its canonical form would not keep the same value and every comment' };
}

/** One file of a configuration folder, as it is and in its canonical form. */
export interface FormattedFile {
  path: string;
  display: string;
  text: string;
  formatted: string;
}

/**
 * The canonical form of every file loadConfig reads in `root`: its *.yaml and *.yml files and those of the
 * module folders they call (`modules: { NAME: { source } }`, inside the folder). Files that do not parse, or
 * whose canonical form would change their meaning, are diagnostics (at file:line:col when they have a place).
 */
export async function formatConfigFolder(
  root: string,
  display: (path: string) => string,
  schema: JsonSchema,
): Promise<{ files: FormattedFile[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const files: FormattedFile[] = [];
  const folders = [root];
  for (let i = 0; i < folders.length; i++) {
    const folder = folders[i]!;
    const names = await listConfigFiles(folder, diagnostics);
    for (const name of names ?? []) {
      const path = join(folder, name);
      const file = await readSourceFile(path, display(path), diagnostics);
      if (!file) continue;
      if (diagnostics.some((d) => d.severity === 'error' && d.range?.file === file.display)) continue;
      for (const source of moduleSources(file.value)) {
        const folderPath = resolve(folder, source);
        const inside = relative(root, folderPath);
        if (folder === root && inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) && !folders.includes(folderPath))
          folders.push(folderPath);
      }
      const outcome = formatConfigText(file.text, schema);
      if (outcome.ok) files.push({ path, display: file.display, text: file.text, formatted: outcome.text });
      else
        diagnostics.push({
          severity: 'error',
          code: 'fmt_unfaithful',
          summary: `${file.display} was left as it is: ${outcome.reason}`,
          detail: 'Please report this with the file: cplane fmt must never change what a configuration means.',
          range: { file: file.display, line: 1, col: 1 },
        });
    }
  }
  return { files, diagnostics: sortDiagnostics(diagnostics) };
}

/** The `source` folders of a file's module calls (a module's own files call none). */
function moduleSources(value: unknown): string[] {
  const modules = (value as { modules?: unknown } | null)?.modules;
  if (typeof modules !== 'object' || modules === null) return [];
  return Object.values(modules).flatMap((call) => {
    const source = (call as { source?: unknown } | null)?.source;
    return typeof source === 'string' ? [source] : [];
  });
}
