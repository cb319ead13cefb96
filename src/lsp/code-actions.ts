/**
 * Quick fixes for the loader's diagnostics that have one obvious repair: a variable used but not declared is
 * declared (under the file's `variables:`, or a new one); a user, group or Service Account named but not in
 * `directory` gets an entry to fill in (its id and public key, which only the person knows).
 */
import { positionIn, type SourceFile } from '../config/index.js';
import type { TextChange } from './rename.js';

export interface Fix {
  title: string;
  change: TextChange;
}

/** Adds `entry` (lines already indented by two spaces per level below the key) under the top-level map `key`, or a new `key:`. */
function addUnder(path: string, text: string, file: SourceFile | undefined, key: string, inner: string[], entry: string[]): TextChange {
  let container: unknown = file?.value;
  let at = 0;
  const keys = [key, ...inner];
  let depth = 0;
  for (const k of keys) {
    const position = positionIn(file!, container, k);
    const next = container !== null && typeof container === 'object' ? (container as Record<string, unknown>)[k] : undefined;
    if (!file || !position || next === null || typeof next !== 'object' || text[position.value[0]] === '{') break;
    container = next;
    at = position.value[1];
    depth++;
  }
  const missing = keys.slice(depth).map((k, i) => `${'  '.repeat(depth + i)}${k}:\n`).join('');
  const body = entry.map((line) => `${'  '.repeat(keys.length)}${line}\n`).join('');
  if (depth === 0) {
    const newline = text === '' || text.endsWith('\n') ? '' : '\n';
    return { path, start: text.length, end: text.length, newText: `${newline}${missing}${body}` };
  }
  const lineEnd = text.indexOf('\n', at - 1);
  const start = lineEnd === -1 ? text.length : lineEnd + 1;
  return { path, start, end: start, newText: `${lineEnd === -1 ? '\n' : ''}${missing}${body}` };
}

const UNKNOWN_VARIABLE = /^Unknown variable "([A-Za-z_][A-Za-z0-9_]*)"/;
const UNKNOWN_DIRECTORY = /^Unknown (user|group) "([^"]+)": it is not declared in directory\.(users|groups)/;

/** The fixes for one diagnostic of the loader (its code and summary) in a file of the configuration. */
export function fixesFor(code: string, summary: string, path: string, text: string, file: SourceFile | undefined, directoryFile: { path: string; text: string; file: SourceFile | undefined }): Fix[] {
  const variable = code === 'unresolved_variable' ? UNKNOWN_VARIABLE.exec(summary)?.[1] : undefined;
  if (variable !== undefined) {
    return [{ title: `Declare variable "${variable}"`, change: addUnder(path, text, file, 'variables', [], [`${variable}: {}`]) }];
  }
  const unknown = code === 'unknown_directory_name' ? UNKNOWN_DIRECTORY.exec(summary) : undefined;
  if (unknown) {
    const [, noun, name, section] = unknown;
    return [{
      title: `Add ${noun} "${name}" to directory.${section}`,
      change: addUnder(directoryFile.path, directoryFile.text, directoryFile.file, 'directory', [section!], [`${name}:`, '  id: TODO', '  publicKey: TODO']),
    }];
  }
  return [];
}
