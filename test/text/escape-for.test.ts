// One list of hostile strings (as the API, the state or a configuration could carry them: drift reasons, step notes,
// unreadable reasons, request ids, error messages) fed into every place cplane writes text for GitHub. Each place's
// Markdown is rendered with markdown-it (CommonMark with GFM tables) and must show exactly the text, redacted and
// escaped, as text: no element, no broken-out code span or table cell, no mention, no comment end, no new line.
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  annotationMessage,
  annotationProperty,
  codeBlock,
  codeSpan,
  htmlComment,
  htmlText,
  markdownText,
  tableCell,
  xmlAttribute,
  xmlText,
} from '../../src/text/escape-for.js';
import { REDACTED, safeLines, safeText, secrets } from '../../src/text/safe-text.js';
import { HOSTILE, SECRET } from './hostile-strings.js';

const md = new MarkdownIt({ html: true });

/** The visible text of rendered HTML: tags dropped, entities decoded, and the zero-width spaces that unlink mentions removed. */
function visible(html: string): string {
  const named: Record<string, string> = { quot: '"', lt: '<', gt: '>', amp: '&' };
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(?:#(\d+)|(quot|lt|gt|amp));/g, (_, code: string | undefined, name: string | undefined) =>
      code ? String.fromCharCode(Number(code)) : named[name!]!,
    )
    .replace(/\u200b/g, '');
}

/** The element names in rendered HTML. */
const tags = (html: string) => [...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => m[1]!.toLowerCase());

/** GitHub links `@login` and `#123` in rendered text: never left linkable. */
const linkable = (html: string) =>
  /@[\w-]|#\d/.test(html.replace(/<[^>]*>/g, '').replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))));

beforeAll(() => secrets.register(SECRET));
afterAll(() => secrets.clear());

describe.each(HOSTILE.map((text) => [JSON.stringify(text).slice(0, 60), text] as const))('%s', (_, text) => {
  // As safeText shows it (computed in each test: the secret is registered by then), without the zero-width spaces
  // that break workflow commands (`visible` drops them); an empty code span shows one space.
  let shown = '';
  let code = '';
  beforeEach(() => {
    shown = safeText(text).replace(/\u200b/g, '');
    code = shown || ' ';
  });

  it('is redacted and escaped first, in every place but names', () => {
    for (const out of [
      markdownText(text),
      codeSpan(text),
      tableCell(text),
      htmlText(text),
      htmlComment(text),
      annotationMessage(text),
      codeBlock([text]),
    ]) {
      expect(out).not.toContain(SECRET);
      // eslint-disable-next-line no-control-regex -- looking for control characters is the point
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e]/);
    }
    if (text.includes(SECRET)) expect(visible(md.render(`x ${markdownText(text)}`))).toContain(REDACTED);
    expect(codeSpan({ name: text })).not.toContain(REDACTED);
  });

  it('markdownText: a paragraph and a list item show the text and nothing else', () => {
    const paragraph = md.render(`Before ${markdownText(text)} after`);
    expect(tags(paragraph)).toEqual(['p', 'p']);
    expect(visible(paragraph)).toBe(`Before ${shown} after\n`);
    expect(linkable(paragraph)).toBe(false);
    const item = md.render(`- ${markdownText(text)}`);
    expect(tags(item)).toEqual(['ul', 'li', 'li', 'ul']);
    expect(visible(item).trim()).toBe(shown.trim());
    // Alone on a line, it starts no heading, list, quote or numbered item either.
    if (shown.trim() !== '') expect(tags(md.render(markdownText(text)))).toEqual(['p', 'p']);
  });

  it('codeSpan: one code element holding the text', () => {
    const html = md.render(`Code ${codeSpan(text)} end`);
    expect(tags(html)).toEqual(['p', 'code', 'code', 'p']);
    expect(visible(/<code>([\s\S]*)<\/code>/.exec(html)![1]!)).toBe(code);
  });

  it('tableCell: one row of exactly two cells, the text in the first and as code in the second', () => {
    const html = md.render(`| a | b |\n|---|---|\n| ${tableCell(text)} | ${tableCell(text, { code: true })} |\n`);
    const row = /<tbody>\n<tr>([\s\S]*)<\/tr>/.exec(html)![1]!;
    expect(tags(row).filter((t) => t === 'td')).toHaveLength(4);
    const [first, second] = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1]!);
    expect(tags(first!)).toEqual([]);
    expect(visible(first!)).toBe(shown.trim());
    expect(linkable(first!)).toBe(false);
    expect(tags(second!)).toEqual(['code', 'code']);
    expect(visible(second!)).toBe(code);
  });

  it('codeBlock: the lines inside one fence', () => {
    const html = md.render(`${codeBlock([text, { name: text }], 'diff')}\n\nafter`);
    expect(tags(html)).toEqual(['pre', 'code', 'code', 'pre', 'p', 'p']);
    expect(visible(/<code[^>]*>([\s\S]*)<\/code>/.exec(html)![1]!)).toBe(
      `${shown}\n${safeText(text)
        .replace(REDACTED, SECRET)
        .replace(/\u200b/g, '')}\n`,
    );
  });

  it('htmlText: the text of a <summary>, with no element of its own', () => {
    const html = md.render(`<details><summary>${htmlText(text)}</summary>\n\nbody\n\n</details>`);
    const summary = /<summary>([\s\S]*)<\/summary>/.exec(html)![1]!;
    expect(tags(summary)).toEqual([]);
    expect(visible(summary)).toBe(shown);
    expect(linkable(summary)).toBe(false);
  });

  it('htmlComment: stays inside its comment, and decodes back to the text', () => {
    const inside = htmlComment(text);
    expect(inside).not.toMatch(/--|>|"|\s/);
    const html = md.render(`<!-- cplane-plan key="${inside}" part="0" -->\nvisible`);
    expect(html).toBe(`<!-- cplane-plan key="${inside}" part="0" -->\n<p>visible</p>\n`);
    expect(decodeURIComponent(inside).replace(/\u200b/g, '')).toBe(shown);
  });

  it('annotation: one line whose message and properties GitHub decodes back to the text', () => {
    const message = annotationMessage(text);
    const property = annotationProperty(text);
    for (const out of [message, property]) expect(out).not.toMatch(/[\r\n]/);
    expect(property).not.toMatch(/[,:]/);
    const decode = (s: string) =>
      s.replace(/%0A/g, '\n').replace(/%0D/g, '\r').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
    expect(decode(message)).toBe(safeLines(text));
    expect(decode(property).replace(/\u200b/g, '')).toBe(shown);
  });

  it('xmlText and xmlAttribute (JUnit): a strict XML parser reads back exactly the text, in one element and one attribute', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<case name="${xmlAttribute(text)}">${xmlText(text)}</case>`;
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      trimValues: false,
      parseTagValue: false,
      parseAttributeValue: false,
    }).parse(xml) as { case: string | { name: string; '#text'?: string } };
    const element = typeof parsed.case === 'string' ? { name: undefined, '#text': parsed.case } : parsed.case;
    expect((element.name ?? '').replace(/\u200b/g, '')).toBe(shown);
    expect(element['#text'] ?? '').toBe(safeLines(text).replace(/\r\n?/g, '\n'));
  });
});
