// The two graph places of src/text/escape-for.ts: a Mermaid node label and a DOT string. Every hostile string is
// redacted (unless passed as a name) and escaped first, and then holds nothing that ends the label or string or
// is read as markup there: in Mermaid no `"`, no raw `#`, `&`, `<`, `>` or backtick; in DOT only escaped quotes
// and backslashes, on one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dotString, mermaidLabel } from '../../src/text/escape-for.js';
import { REDACTED, safeText, secrets } from '../../src/text/safe-text.js';
import { HOSTILE, SECRET } from './hostile-strings.js';

beforeAll(() => secrets.register(SECRET));
afterAll(() => secrets.clear());

const decodeMermaid = (label: string) =>
  label.replace(
    /#(quot|num|amp|lt|gt|grave);/g,
    (_, name: string) => ({ quot: '"', num: '#', amp: '&', lt: '<', gt: '>', grave: '`' })[name]!,
  );
const decodeDot = (quoted: string) => quoted.slice(1, -1).replace(/\\(["\\])/g, '$1');

describe.each(HOSTILE.map((text) => [JSON.stringify(text).slice(0, 60), text] as const))('%s', (_, text) => {
  it('mermaidLabel: redacted, escaped, and nothing in it ends a quoted label or is markup', () => {
    const label = mermaidLabel(text);
    expect(label).not.toContain(SECRET);
    expect(label).not.toMatch(/["<>&`\n\r]/);
    expect(label).not.toMatch(/#(?!(quot|num|amp|lt|gt|grave);)/);
    expect(decodeMermaid(label)).toBe(safeText(text));
    if (text.includes(SECRET)) expect(decodeMermaid(label)).toContain(REDACTED);
  });

  it('dotString: one double-quoted string, its quotes and backslashes escaped, read back as the text', () => {
    const quoted = dotString(text);
    expect(quoted).not.toContain(SECRET);
    expect(quoted).toMatch(/^"(?:[^"\\\n\r]|\\["\\])*"$/);
    expect(decodeDot(quoted)).toBe(safeText(text));
  });

  it('a name is escaped the same way but never redacted', () => {
    expect(decodeMermaid(mermaidLabel({ name: `gateway.k[${SECRET}]` }))).toBe(`gateway.k[${SECRET}]`);
    expect(decodeDot(dotString({ name: `a"${SECRET}\\` }))).toBe(`a"${SECRET}\\`);
  });
});
