// CSV cells of the access report: RFC 4180 quoting, and a cell a spreadsheet would run as a formula made inert.
import { describe, expect, it } from 'vitest';
import { csvCell } from '../../src/render/index.js';

describe('a CSV cell of the access report', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+cmd', "'+cmd"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['plain-name', 'plain-name'],
    ['a=b', 'a=b'],
  ])('%s is written %s', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it('quotes a comma, a quote or a line break, doubling quotes, after making a formula inert', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=HYPERLINK("x","y")')).toBe('"\'=HYPERLINK(""x"",""y"")"');
  });

  it('escapes control characters, so a tab or a line break cannot start a formula or a row', () => {
    expect(csvCell('\t=1')).toBe('\\t=1');
    expect(csvCell('a\nb')).toBe('a\\nb');
    expect(csvCell('\u001b[31m')).toBe('\\e[31m');
  });
});
