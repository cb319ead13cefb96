/**
 * Quick fixes for the loader's diagnostics that have one obvious repair: a variable used but not declared is
 * declared (under the file's `variables:`, or a new one); a user or group named but not in `directory` gets an
 * entry to fill in (its id and public key, which only the person knows). A Service Account is the account's, so
 * naming one not pinned in `directory` is no error: the action to pin it is offered where its name is.
 */
import { positionIn, type SourceFile } from '../config/index.js';
import type { TextChange } from './rename.js';

/** Where the configuration's `directory:` is (or goes): a file of the configuration folder, its text, its parse. */
export interface DirectoryFile {
  path: string;
  text: string;
  file: SourceFile | undefined;
}

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
  const missing = keys
    .slice(depth)
    .map((k, i) => `${'  '.repeat(depth + i)}${k}:\n`)
    .join('');
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
export function fixesFor(
  code: string,
  summary: string,
  path: string,
  text: string,
  file: SourceFile | undefined,
  directoryFile: DirectoryFile,
): Fix[] {
  const variable = code === 'unresolved_variable' ? UNKNOWN_VARIABLE.exec(summary)?.[1] : undefined;
  if (variable !== undefined) {
    return [{ title: `Declare variable "${variable}"`, change: addUnder(path, text, file, 'variables', [], [`${variable}: {}`]) }];
  }
  const unknown = code === 'unknown_directory_name' ? UNKNOWN_DIRECTORY.exec(summary) : undefined;
  if (unknown) {
    const [, noun, name, section] = unknown;
    return [
      {
        title: `Add ${noun} "${name}" to directory.${section}`,
        change: addUnder(
          directoryFile.path,
          directoryFile.text,
          directoryFile.file,
          'directory',
          [section!],
          [`${name}:`, '  id: TODO', '  publicKey: TODO'],
        ),
      },
    ];
  }
  return [];
}

/** Pins a Service Account a grant names in `directory.serviceAccounts`, its key id to fill in. */
export function pinServiceAccount(name: string, directoryFile: DirectoryFile): Fix {
  return {
    title: `Pin Service Account "${name}" in directory.serviceAccounts`,
    change: addUnder(
      directoryFile.path,
      directoryFile.text,
      directoryFile.file,
      'directory',
      ['serviceAccounts'],
      [`${name}:`, '  keyId: TODO'],
    ),
  };
}
