/**
 * Wrapping printed lines at word boundaries for a terminal of a given width, so the terminal never breaks
 * one mid-word ("Workspace: def" / "ault"). Colour codes take no width. A continuation line starts under
 * the line's own text (its leading spaces, plus two), so a wrapped step stays inside its block. A word
 * longer than the room left is not cut: it gets a line of its own, where the terminal shows it whole
 * when it fits, and as it must when it does not.
 */

// eslint-disable-next-line no-control-regex -- the SGR sequences the painter (src/paint.ts) writes
const SGR = /\u001b\[[0-9;]*m/g;

/** The text without its colour codes. */
export function withoutColour(text: string): string {
  return text.replace(SGR, '');
}

/** The columns a text takes on a terminal: its characters, without colour codes. */
export function visibleWidth(text: string): number {
  return [...withoutColour(text)].length;
}

/** One line as lines of at most `width` columns, broken only at spaces. */
export function wrapLine(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  const indent = /^ */.exec(line)![0].length;
  const hanging = ' '.repeat(Math.min(indent + 2, Math.floor(width / 2)));
  // Words with the spaces written before each (kept where the line is not broken: alignment survives).
  const parts = line.slice(indent).split(/( +)/);
  const lines: string[] = [];
  let current = ' '.repeat(indent);
  let used = indent;
  let empty = true;
  for (let i = 0; i < parts.length; i += 2) {
    const word = parts[i]!;
    const gap = i === 0 ? '' : parts[i - 1]!;
    if (word === '') continue;
    const size = visibleWidth(word);
    if (!empty && used + gap.length + size > width) {
      lines.push(current);
      current = hanging;
      used = hanging.length;
      empty = true;
    }
    current += empty ? word : `${gap}${word}`;
    used += empty ? size : gap.length + size;
    empty = false;
  }
  lines.push(current);
  return lines;
}

/** Every line of `text` wrapped to `width` columns (see wrapLine); a text without a width is left as it is. */
export function wrapText(text: string, width: number | undefined): string {
  if (width === undefined || width <= 0) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
