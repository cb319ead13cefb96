/**
 * Where the cursor is in a file being typed: the keys of the maps around it and whether it is on a key, a value
 * or a list item. A file being typed is often not valid YAML yet (`project: ` with nothing after it, a key with
 * no colon), so this reads the lines above the cursor by their indentation, as block YAML nests, rather than the
 * parsed document; what a name means is still read from the index, which the loader's parser made.
 */

export interface Cursor {
  /** The keys from the top of the file to the map the cursor is in (list items are passed through). */
  path: string[];
  /** On a key of the map `path` names, on the value of its last key, or on an item of its last key's list. */
  part: 'key' | 'value' | 'item';
  /** The word typed so far and where it starts: what a completion replaces. */
  prefix: string;
  prefixStart: number;
  /** Inside `${var.` of a string: the variable name typed so far. */
  variable?: boolean;
}

const KEY_LINE = /^(?:-\s+)?([^\s:#'"[\]{}][^:#]*?|"[^"]*"|'[^']*'):(?:\s+(.*))?$/;
const unquote = (key: string) => key.replace(/^["'](.*)["']$/, '$1');

export function cursorAt(text: string, offset: number): Cursor {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const line = text.slice(lineStart, offset);
  const word = /[A-Za-z0-9_\-/.]*$/.exec(line)![0];
  const prefixStart = offset - word.length;
  const indent = /^ */.exec(line)![0].length;
  let content = line.slice(indent);
  // Inside a list item (`- name: x`), the item's keys sit after the dash.
  let innerIndent = indent;
  while (content.startsWith('- ')) {
    const dash = /^-\s+/.exec(content)![0].length;
    innerIndent += dash;
    content = content.slice(dash);
  }
  const variable = /\$\{\s*var\.[A-Za-z0-9_]*$/.test(line);
  const parents = parentKeys(text, lineStart, innerIndent);
  const keyLine = KEY_LINE.exec(content);
  const base = { prefix: word, prefixStart, ...(variable ? { variable } : {}) };
  if (keyLine && keyLine[2] !== undefined) {
    const key = unquote(keyLine[1]!.trim());
    return { ...base, path: [...parents, key], part: keyLine[2].trimStart().startsWith('[') ? 'item' : 'value' };
  }
  if (line.slice(indent).startsWith('- ') && content === word) return { ...base, path: parents, part: 'item' };
  return { ...base, path: parents, part: 'key' };
}

/**
 * The keys of the maps that hold a line whose content starts at column `indent`, read upwards from `lineStart`:
 * a key line left of the content holds it; a list item's dash left of it is passed through (the key holding
 * the list may sit at the dash's column, `moved:` over `- from: ...`).
 */
function parentKeys(text: string, lineStart: number, indent: number): string[] {
  const keys: string[] = [];
  let limit = indent;
  let dashAt: number | undefined;
  let end = lineStart - 1;
  while (end > 0 && (limit > 0 || dashAt === 0)) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    end = start - 1;
    const own = /^ */.exec(line)![0].length;
    const content = line.slice(own);
    if (content === '' || content.startsWith('#')) continue;
    if (content.startsWith('- ')) {
      if (own < limit) {
        limit = own;
        dashAt = own;
      }
      continue;
    }
    if (own >= limit && own !== dashAt) continue;
    const key = KEY_LINE.exec(content);
    if (key) keys.unshift(unquote(key[1]!.trim()));
    limit = own;
    dashAt = undefined;
  }
  return keys;
}
