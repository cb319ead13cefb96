/**
 * The one ANSI painter (ground floor): styles by name, applied only when the
 * caller says colour is on. The caller decides colour (a TTY, and no NO_COLOR);
 * nothing here looks at the terminal.
 */

const codes = {
  add: ['32', '39'],
  change: ['33', '39'],
  remove: ['31', '39'],
  replace: ['35', '39'],
  import: ['36', '39'],
  plain: ['', ''],
  bold: ['1', '22'],
  dim: ['2', '22'],
  warn: ['33', '39'],
  error: ['31', '39'],
  'bold-error': ['1;31', '0'],
  'bold-warn': ['1;33', '0'],
} as const satisfies Record<string, readonly [string, string]>;

export type Style = keyof typeof codes;
export type Paint = (style: Style, text: string) => string;

export function painter(color: boolean): Paint {
  return (style, text) => {
    const [open, close] = codes[style];
    return color && open !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  };
}
