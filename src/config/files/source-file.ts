/**
 * Reading one YAML file safely: refused by size before it is read, refused when
 * it is not UTF-8, parsed with positions kept, and expanded with a bound on
 * aliases so that a "billion laughs" file cannot exhaust memory, and with a bound
 * on nesting so that no later stage recurses too deep. An alias without an
 * anchor and too deep a nesting are reported as what they are. Every problem
 * becomes a diagnostic pointing at the file, never a thrown error.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAlias, isCollection, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import type { Diagnostic } from '../types.js';

export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Aliases allowed per file; real configurations use a handful. */
export const MAX_ALIAS_COUNT = 100;
/** Levels of nested maps and lists allowed per file; the configuration schema needs fewer than ten. */
export const MAX_DEPTH = 64;

const tooDeep = (display: string) => ({
  code: 'yaml_too_deep',
  summary: `${display} nests lists or maps too deeply: a configuration file may nest at most ${MAX_DEPTH} levels`,
  detail: 'Flatten the structure; no configuration key takes values nested this deep.',
});

/**
 * The first problem of the document's structure that parsing does not report: a collection nested
 * deeper than MAX_DEPTH, or an alias with no anchor before it. Walks with an explicit stack, since
 * the document it checks may be too deep for recursion. The same walk gathers, into `duplicates`, the
 * offsets of the keys that repeat an earlier key of their map: the parser's own check (uniqueKeys)
 * compares each key with every earlier one of its map, which is quadratic in a map of 5,000 records,
 * and one walk rather than two keeps loading a large file cheap.
 */
function structureProblem(
  doc: Document,
  file: SourceFile,
  duplicates: number[],
): { offset: number; code: string; summary: string; detail: string } | undefined {
  const stack: { node: unknown; depth: number; key?: boolean }[] = [{ node: doc.contents, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth, key: inKey } = stack.pop()!;
    if (isAlias(node)) {
      if (node.resolve(doc) === undefined) {
        return {
          offset: node.range?.[0] ?? 0,
          code: 'yaml_undefined_alias',
          summary: `Undefined YAML alias "*${node.source}": no anchor "&${node.source}" is set before it`,
          detail: `Set the anchor (&${node.source}) on a value above this line, or write the value out.`,
        };
      }
    } else if (isCollection(node)) {
      if (depth > MAX_DEPTH) return { offset: node.range?.[0] ?? 0, ...tooDeep(file.display) };
      // As before the walks were one: a map written as a key (`? {a: 1}`) is not checked for repeats.
      if (isMap(node) && !inKey) {
        const seen = new Set<string>();
        for (const item of node.items) {
          if (!isPair(item) || !isScalar(item.key)) continue;
          const key = String(item.key.value);
          if (seen.has(key)) duplicates.push((item.key as Node).range?.[0] ?? 0);
          seen.add(key);
        }
      }
      // From the last item back, so the walk meets problems in the order of the text.
      const { items } = node as { items: unknown[] };
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i];
        if (isPair(item)) stack.push({ node: item.value, depth: depth + 1, key: inKey }, { node: item.key, depth: depth + 1, key: true });
        else stack.push({ node: item, depth: depth + 1, key: inKey });
      }
    }
  }
  return undefined;
}

export interface NodePosition {
  /** Offset of the key of the map entry, if the path ends at a map entry. */
  key?: number;
  /** Offsets of the value. */
  value: [number, number];
}

export interface SourceFile {
  /** Path as shown to the user (relative to the working directory when inside it). */
  display: string;
  /** Absolute path. */
  path: string;
  text: string;
  lines: LineCounter;
  /**
   * Positions kept on the nodes of the parsed value: for each map and list of `value`, the position of each
   * of its entries (a list's by index). Interpolation changes values in place, so the nodes keep them; a
   * resource made from a template node reports the template's position.
   */
  nodes: WeakMap<object, Map<string, NodePosition>>;
  /** The parsed value, or undefined when the file could not be parsed. */
  value: unknown;
  /** For a module's file: the module call it is read for, named in its diagnostics (modules.ts). */
  within?: string;
  /**
   * Never quoted in a snippet: the file had more than one hard link when it was read, so its bytes may be another
   * file's (a link inside the tree to a key file outside it), which a diagnostic would publish.
   */
  unquoted?: boolean;
}

/** Records, for each map and list of the parsed value, the positions of its entries (aliases keep their anchor's). */
function attachPositions(node: Node | null | undefined, value: unknown, into: WeakMap<object, Map<string, NodePosition>>): void {
  if (!node || isAlias(node) || value === null || typeof value !== 'object' || into.has(value)) return;
  const entries = new Map<string, NodePosition>();
  if (isMap(node)) {
    for (const item of node.items) {
      if (!isPair(item) || !isScalar(item.key)) continue;
      const keyNode = item.key as Node;
      const valueNode = item.value as Node | null;
      const key = String(item.key.value);
      const keyStart = keyNode.range?.[0] ?? 0;
      entries.set(key, {
        key: keyStart,
        value: valueNode?.range ? [valueNode.range[0], valueNode.range[1]] : [keyStart, keyNode.range?.[1] ?? keyStart],
      });
      attachPositions(valueNode, (value as Record<string, unknown>)[key], into);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const child = item as Node;
      if (child?.range) entries.set(String(i), { value: [child.range[0], child.range[1]] });
      attachPositions(child, (value as unknown[])[i], into);
    });
  }
  into.set(value, entries);
}

/** Where a scalar's text starts: past its opening quote, so that what is underlined is the value, not the quote. */
export function textStart(file: SourceFile, offset: number): number {
  const first = file.text[offset];
  return first === '"' || first === "'" ? offset + 1 : offset;
}

/**
 * The offset of entry `key` of `container` (a map or list of the file's value): of its key, or of its value
 * with `part: 'value'` (a list item has only a value). Every entry the loader reads is in the file; the
 * file's start answers only for one that is not.
 */
export function offsetIn(file: SourceFile, container: unknown, key: string | number, part: 'key' | 'value' = 'key'): number {
  const position = positionIn(file, container, key);
  return (part === 'key' ? position?.key : undefined) ?? position?.value[0] ?? 0;
}

/** The position of entry `key` of the map or list `container` of a file's value, if the file has it. */
export function positionIn(file: SourceFile, container: unknown, key: string | number): NodePosition | undefined {
  return container !== null && typeof container === 'object' ? file.nodes.get(container)?.get(String(key)) : undefined;
}

/** The first character that is not valid UTF-8, as an offset into the lossily decoded text. */
function firstInvalidUtf8(bytes: Buffer): number | undefined {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return undefined;
  } catch {
    return new TextDecoder('utf-8').decode(bytes).indexOf('\uFFFD');
  }
}

const YAML_MESSAGES: Record<string, string> = {
  TAB_AS_INDENT: 'Tabs are not allowed for indentation in YAML; indent with spaces',
  DUPLICATE_KEY: 'Duplicate key',
  MULTIPLE_DOCS: 'A configuration file holds one YAML document; remove the "---" separator or split the file',
};

/**
 * Texts of files that an editor holds open, by absolute path (the language server's unsaved buffers, docs/editors.md):
 * read in place of the file on disk, through the same checks.
 */
export type OpenDocuments = ReadonlyMap<string, string>;

const tooLarge = (display: string, size: number): Diagnostic => ({
  severity: 'error',
  code: 'file_too_large',
  summary: `${display} is ${(size / 1024 / 1024).toFixed(1)} MB; a configuration file may be at most 5 MB`,
  detail: 'Split the configuration into several files in the same folder.',
  range: { file: display, line: 1, col: 1 },
});

/** Files parsed once for several loads (shared-loads.ts): a copy of the kept parse when the bytes are the same. */
export interface ParsedFiles {
  parse(bytes: Buffer, path: string, display: string, sink: DiagnosticSink, unquoted: boolean): SourceFile | undefined;
}

/**
 * With `noFollow`, a symbolic link in the last place of `path` is refused (ELOOP) rather than followed: a
 * module's files are read from the folder that was checked to be inside the configuration, and a file
 * swapped for a link after the folder was listed must not lead outside it. (Windows has no O_NOFOLLOW.)
 * A file of `open` is taken from there rather than from the disk; with `shared`, a file parsed before is not parsed again.
 */
export async function readSourceFile(
  path: string,
  display: string,
  sink: DiagnosticSink,
  { noFollow = false, open: openDocuments, shared }: { noFollow?: boolean; open?: OpenDocuments; shared?: ParsedFiles } = {},
): Promise<SourceFile | undefined> {
  const held = openDocuments?.get(path);
  if (held !== undefined) return parseSourceFile(Buffer.from(held, 'utf8'), path, display, sink);
  // One open handle for the size, the links and the bytes, so all are of the same file: the opened one, not the path.
  const handle = await open(path, constants.O_RDONLY | (noFollow ? (constants.O_NOFOLLOW ?? 0) : 0));
  let bytes: Buffer;
  let unquoted: boolean;
  try {
    const stat = await handle.stat();
    if (stat.size > MAX_FILE_BYTES) {
      sink.push(tooLarge(display, stat.size));
      return undefined;
    }
    unquoted = stat.nlink > 1;
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  return shared ? shared.parse(bytes, path, display, sink, unquoted) : parseSourceFile(bytes, path, display, sink, { unquoted });
}

/** A file's bytes parsed with positions kept (the checks of readSourceFile but reading): undefined after a diagnostic. */
export function parseSourceFile(
  bytes: Buffer,
  path: string,
  display: string,
  sink: DiagnosticSink,
  { unquoted = false }: { unquoted?: boolean } = {},
): SourceFile | undefined {
  if (bytes.length > MAX_FILE_BYTES) {
    sink.push(tooLarge(display, bytes.length));
    return undefined;
  }
  const invalidAt = firstInvalidUtf8(bytes);
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const lines = new LineCounter();
  const file: SourceFile = { display, path, text, lines, nodes: new WeakMap(), value: undefined, ...(unquoted ? { unquoted } : {}) };
  if (invalidAt !== undefined) {
    lines.addNewLine(0);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
    sink.push(
      diagnosticAt(file, invalidAt, {
        code: 'not_utf8',
        summary: `${display} is not valid UTF-8`,
        detail: 'Save the file with UTF-8 encoding.',
      }),
    );
    return undefined;
  }
  const doc: Document = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
  if (reportParseErrors(doc, file, sink)) return undefined;
  const duplicates: number[] = [];
  const problem = structureProblem(doc, file, duplicates);
  if (problem) {
    const { offset, ...diagnostic } = problem;
    sink.push(diagnosticAt(file, offset, diagnostic));
    return undefined;
  }
  // Duplicates are sorted into the order of the text, as a walk of the file meets them.
  duplicates.sort((a, b) => a - b);
  for (const offset of duplicates) {
    sink.push(
      diagnosticAt(file, offset, {
        code: 'duplicate_key',
        summary: `Duplicate key "${duplicateKeyAt(text, offset)}": a key may appear only once in a map`,
      }),
    );
  }
  if (duplicates.length > 0) return undefined;
  // After the structure check: this walk recurses, so it may only see a bounded depth.
  try {
    file.value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    attachPositions(doc.contents as Node | null, file.value, file.nodes);
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      sink.push({
        severity: 'error',
        code: 'yaml_alias_limit',
        summary: `${display} expands too many YAML aliases (more than ${MAX_ALIAS_COUNT}); refusing it as a possible "billion laughs" attack`,
        detail: 'Write the values out instead of reusing them through aliases (*name).',
        range: { file: display, line: 1, col: 1 },
      });
      return undefined;
    }
    throw error;
  }
  return file;
}

/** Says the parser's errors (the first syntax error of a run of them, every tab and duplicate key); true when there were any. */
function reportParseErrors(doc: Document, file: SourceFile, sink: DiagnosticSink): boolean {
  const { text } = file;
  let syntaxReported = false;
  for (const error of doc.errors) {
    // The parser gives up on deep flow nesting with a stack overflow: say what it means.
    if (error.code === 'RESOURCE_EXHAUSTION' && /call stack/i.test(error.message)) {
      sink.push(diagnosticAt(file, error.pos[0], tooDeep(file.display)));
      return true;
    }
    const code = error.code === 'TAB_AS_INDENT' ? 'yaml_tab_indent' : error.code === 'DUPLICATE_KEY' ? 'duplicate_key' : 'yaml_syntax';
    // One broken token makes the parser report every later token too: only the first says anything.
    if (code === 'yaml_syntax' && syntaxReported) continue;
    syntaxReported ||= code === 'yaml_syntax';
    const summary =
      code === 'duplicate_key'
        ? `Duplicate key "${duplicateKeyAt(text, error.pos[0])}": a key may appear only once in a map`
        : (YAML_MESSAGES[error.code] ?? `YAML syntax error: ${error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
    const line = text.slice(text.lastIndexOf('\n', error.pos[0] - 1) + 1, error.pos[0] + 1);
    const detail =
      code === 'yaml_syntax' && /[[{][^\]}]*\$\{/.test(line)
        ? 'Inside [ ] or { }, quote a value that contains "${...}", e.g. ["${var.env}"].'
        : undefined;
    sink.push(diagnosticAt(file, error.pos[0], { code, summary, detail }));
  }
  return doc.errors.length > 0;
}

function duplicateKeyAt(text: string, offset: number): string {
  const match = /^["']?([^"':\n]*)/.exec(text.slice(offset, offset + 200));
  return match?.[1]?.trim() ?? '';
}

/**
 * A copy of `value` whose maps and lists keep the positions of the originals: a diagnostic about an
 * instance's field points at the template's field. `omit` leaves out a key of the top map (the template's
 * `forEach`, which each copy would otherwise carry whole).
 */
export function copyWithPositions(file: SourceFile, value: unknown, omit?: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  const copy: unknown = Array.isArray(value)
    ? value.map((item) => copyWithPositions(file, item))
    : Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => k !== omit)
          .map(([k, v]) => [k, copyWithPositions(file, v)]),
      );
  const positions = file.nodes.get(value);
  if (positions) file.nodes.set(copy as object, positions);
  return copy;
}
