/**
 * Reading a folder of configuration files: which files it has (*.yaml and *.yml, subfolders not read),
 * each file parsed with its positions, and the variables they declare. The configuration folder and
 * each module's folder (modules.ts) are read the same way; the environment variables their secret sources
 * name are found here too (interpolation refuses to put them into ordinary fields).
 */
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { checkPathInside, PATH_HINT, refusalWords, type PathBounds } from './path-bounds.js';
import { offsetIn, positionIn, readSourceFile, textStart, type OpenDocuments, type ParsedFiles, type SourceFile } from './source-file.js';
import type { VariableDeclaration } from '../values/variables.js';
import type { VariableConfig } from './config-file.js';

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The configuration files of `dir`, sorted; undefined (and a diagnostic) when there are none. */
export async function listConfigFiles(dir: string, sink: DiagnosticSink): Promise<string[] | undefined> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    const names = entries
      .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
      .map((e) => e.name)
      .sort();
    if (names.length === 0) {
      sink.push({
        severity: 'error',
        code: 'no_config_files',
        summary: `No configuration files in ${dir}: expected at least one *.yaml or *.yml file`,
        detail: 'Subfolders are not read. `cplane init DIR` writes a starter cplane.yaml into a folder that has none.',
      });
      return undefined;
    }
    return names;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    sink.push({
      severity: 'error',
      code: 'config_dir_missing',
      summary:
        code === 'ENOTDIR'
          ? `${dir} is not a folder: give the folder that holds the configuration files`
          : `Configuration folder ${dir} does not exist`,
    });
    return undefined;
  }
}

/** The variables the files declare, by name; one declared twice is an error at the second. */
export function collectDeclarations(files: SourceFile[], sink: DiagnosticSink): Map<string, VariableDeclaration> {
  const declarations = new Map<string, VariableDeclaration>();
  for (const file of files) {
    const variables = (file.value as Record<string, unknown>).variables;
    if (!isMapping(variables)) continue;
    for (const [name, config] of Object.entries(variables)) {
      const earlier = declarations.get(name);
      if (earlier) {
        const { line, col } = earlier.file.lines.linePos(
          offsetIn(earlier.file, (earlier.file.value as Record<string, unknown>).variables, name),
        );
        sink.push(
          diagnosticAt(file, offsetIn(file, variables, name), {
            code: 'duplicate_variable',
            summary: `Variable "${name}" is declared twice: in ${earlier.file.display}:${line}:${col} and again here`,
          }),
        );
        continue;
      }
      declarations.set(name, { name, config: (isMapping(config) ? config : {}) as VariableConfig, file });
    }
  }
  return declarations;
}

/**
 * The files `names` of `root`, parsed; each must be a map of top-level keys. `within` names the module call they are
 * read for; a file of `open` (an editor's unsaved buffer) is read from there.
 */
export async function readConfigFiles(
  root: string,
  names: readonly string[],
  display: (name: string) => string,
  sink: DiagnosticSink,
  within?: string,
  open?: OpenDocuments,
  shared?: ParsedFiles,
): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  for (const name of names) {
    try {
      // Never through a link: the listing keeps only plain files, and one swapped for a link since is refused (ELOOP).
      const file = await readSourceFile(join(root, name), display(name), sink, { noFollow: true, open, shared });
      if (!file) continue;
      if (within) file.within = within;
      file.value ??= {};
      if (!isMapping(file.value)) {
        sink.push(
          diagnosticAt(file, 0, {
            code: 'wrong_type',
            summary: `${file.display} must be a map of top-level keys (version, account, variables, projects, credentials, gateways, moved, removed, import, policies, directory, defaults, modules)`,
          }),
        );
        continue;
      }
      files.push(file);
    } catch (error) {
      sink.push({
        severity: 'error',
        code: 'file_unreadable',
        summary: `Cannot read ${display(name)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      });
    }
  }

  return files;
}

/** Names of the environment variables used as secret sources (`{ env: NAME }`) anywhere in the files. */
export function secretEnvNames(values: unknown[]): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isMapping(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === 'env' && typeof value.env === 'string') names.add(value.env);
      else Object.values(value).forEach(walk);
    }
  };
  values.forEach(walk);
  return names;
}

/** `${...}` (a reference) or `$${` (a literal `${`) in a source's name. */
const NAME_REFERENCE = /\$\$\{|\$\{[^}]*\}/g;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A test of the variables the files' secret sources read, in every deployment: a source's name, or, when it is
 * interpolated (`DB_PASSWORD_${var.env}`), every name it can become (`DB_PASSWORD_` and anything), whatever the
 * variables' values. A name that is only references (`${var.source}`) can become any name: it matches every variable
 * with `bareReference: 'every variable'` (what to withhold), none with `'none'` (what to redact: not every value of
 * the environment).
 */
export function secretEnvMatcher(values: unknown[], options: { bareReference: 'every variable' | 'none' }): (variable: string) => boolean {
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const written of secretEnvNames(values)) {
    if (!written.includes('${')) {
      exact.add(written);
      continue;
    }
    let source = '';
    let literal = '';
    let last = 0;
    for (const match of written.matchAll(NAME_REFERENCE)) {
      literal += written.slice(last, match.index) + (match[0] === '$${' ? '${' : '');
      source += escapeRegExp(written.slice(last, match.index)) + (match[0] === '$${' ? '\\$\\{' : '[^=]*');
      last = match.index + match[0].length;
    }
    literal += written.slice(last);
    if (literal === '' && options.bareReference === 'none') continue;
    patterns.push(new RegExp(`^${source}${escapeRegExp(written.slice(last))}$`));
  }
  return (variable) => exact.has(variable) || patterns.some((pattern) => pattern.test(variable));
}

/** The `{ file: PATH }` secret sources of a file: the map (for its position) and the path as written. */
export function secretFileSources(file: SourceFile): { source: Record<string, unknown>; written: string }[] {
  const found: { source: Record<string, unknown>; written: string }[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isMapping(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === 'file' && typeof value.file === 'string') found.push({ source: value, written: value.file });
      else Object.values(value).forEach(walk);
    }
  };
  walk(file.value);
  return found;
}

/**
 * Every `{ file: PATH }` secret source of the files (relative to its file's folder) that leads outside `bounds`:
 * an error at the path, so the value is never read, and never sent to the API as a record's value.
 */
export async function confineSecretFiles(files: readonly SourceFile[], bounds: PathBounds, sink: DiagnosticSink): Promise<void> {
  for (const file of files) {
    for (const { source, written } of secretFileSources(file)) {
      const checked = await checkPathInside(resolve(dirname(file.path), written), bounds);
      if ('real' in checked) continue;
      const offset = textStart(file, positionIn(file, source, 'file')?.value[0] ?? 0);
      sink.push(
        diagnosticAt(file, offset, {
          code: 'path_outside',
          summary: `The secret source file "${written}" ${refusalWords(checked.refused, bounds)}: it is not read`,
          detail: PATH_HINT,
          end: offset + written.length,
        }),
      );
    }
  }
}
