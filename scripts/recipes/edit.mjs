/**
 * The edits a recipe script makes (scripts/recipes/*.sh), each refusing to guess: an anchor that is not in the
 * file, or is there more than once, is an error naming the file, so a recipe whose step no longer applies fails
 * at that step instead of writing somewhere else.
 *
 *   node scripts/recipes/edit.mjs before FILE ANCHOR TEXT_FILE   # inserts the text just before the anchor
 *   node scripts/recipes/edit.mjs after FILE ANCHOR TEXT_FILE    # inserts the text just after it
 *   node scripts/recipes/edit.mjs import FILE MODULE NAME...     # adds names to the file's import of MODULE
 *   node scripts/recipes/edit.mjs check FILE ANCHOR              # only checks that the anchor is there once
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Where `anchor` is in `text`: the one place, or an error naming `file`. */
export function placeOf(text, anchor, file) {
  const at = text.indexOf(anchor);
  if (at < 0) throw new Error(`${file}: the recipe's anchor is not there: ${JSON.stringify(anchor)}`);
  if (text.indexOf(anchor, at + 1) >= 0) throw new Error(`${file}: the recipe's anchor is there more than once: ${JSON.stringify(anchor)}`);
  return at;
}

/** `text` with `insert` placed before (or after) the one `anchor`. */
export function insert(text, anchor, insert, { after = false, file = 'the file' } = {}) {
  const at = placeOf(text, anchor, file) + (after ? anchor.length : 0);
  return text.slice(0, at) + insert + text.slice(at);
}

/** `text` importing `names` from `module` too: added to its import of the module, or as a new import after the last. */
export function withImport(text, module, names) {
  const quoted = `'${module}';`;
  const existing = new RegExp(`^import \\{([^}]*)\\} from ${quoted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(text);
  if (existing) {
    const all = [
      ...new Set([
        ...existing[1]
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean),
        ...names,
      ]),
    ];
    return text.replace(existing[0], `import { ${all.join(', ')} } from ${quoted}`);
  }
  const lines = text.split('\n');
  const last = lines.findLastIndex(
    (line) => line.startsWith('import ') || line.endsWith(` from ${quoted}`) || / from '[^']+';$/.test(line),
  );
  lines.splice(last + 1, 0, `import { ${names.join(', ')} } from ${quoted}`);
  return lines.join('\n');
}

function main([command, file, ...rest]) {
  const text = readFileSync(file, 'utf8');
  if (command === 'check') return void placeOf(text, rest[0], file);
  if (command === 'import') return writeFileSync(file, withImport(text, rest[0], rest.slice(1)));
  if (command !== 'before' && command !== 'after') throw new Error(`unknown command ${command}`);
  writeFileSync(file, insert(text, rest[0], readFileSync(rest[1], 'utf8'), { after: command === 'after', file }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
