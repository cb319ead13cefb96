/**
 * Untrusted text (from the API, the state, the database, configuration names)
 * escaped for the one place it is written: one function per place, so a
 * renderer never composes escapes by hand. Each function first makes the text
 * safe to print (secrets redacted, control characters and bidi overrides
 * escaped: src/text/safe-text.ts), then escapes what that place would read as
 * markup:
 *
 * | place                                   | function              |
 * |-----------------------------------------|-----------------------|
 * | Markdown paragraph, list item, heading  | `markdownText`        |
 * | Markdown table cell                     | `tableCell`           |
 * | Markdown code span (backticks included) | `codeSpan`            |
 * | Markdown fenced code block, one per line| `codeBlock`           |
 * | text of an HTML element (`<summary>`)   | `htmlText`            |
 * | inside an HTML comment (`<!-- … -->`)   | `htmlComment`         |
 * | GitHub workflow command message/property| `annotationMessage`, `annotationProperty` |
 * | XML element text / attribute (JUnit)    | `xmlText`, `xmlAttribute` |
 * | Mermaid node label (`id["…"]`)          | `mermaidLabel`        |
 * | Graphviz DOT identifier or label        | `dotString`           |
 * | a command a person copies into a shell   | `shellArgument`, `suggestedCommand` |
 *
 * A name (an address, a local name, a workspace, a folder) is passed as
 * `{ name }`: it is escaped the same way but never redacted, since names are
 * not secret and a secret that happens to match part of one must not garble it.
 */
import { escapeControl, escapeControlCharacters, safeLines, safeText } from './safe-text.js';

/** Untrusted text: a plain string is redacted and escaped; `{ name }` is only escaped. */
export type Untrusted = string | { name: string };

const printable = (text: Untrusted): string => (typeof text === 'string' ? safeText(text) : escapeControl(text.name));

/**
 * GitHub turns `@login` into a mention (a notification) and `#123` into a cross-reference wherever it sees
 * them in rendered text, escaped or not; a zero-width space after the sign keeps them plain text.
 */
const unlinked = (text: string): string => text.replace(/([@#])(?=[\w-])/g, '$1\u200b');

/** The ASCII punctuation that starts inline markup anywhere in a line (code, emphasis, links, HTML, entities, cells, strike-through). */
const INLINE_MARKUP = /[\\`*_[\]<>&|~]/g;
/** What starts a block when it opens a line: a heading, a list, a quote, a setext underline, a numbered list. */
const BLOCK_START = /^( {0,3})([#+\-=>]|\d+(?=[.)]))/;

/** For a paragraph, a list item or a heading: renders as exactly the text, with no markup, HTML or mention. */
export function markdownText(text: Untrusted): string {
  const escaped = unlinked(printable(text)).replace(INLINE_MARKUP, '\\$&');
  return escaped.replace(BLOCK_START, (_, indent: string, start: string) =>
    /^\d/.test(start) ? `${indent}${start}\\` : `${indent}\\${start}`,
  );
}

/** A code span, backticks included: the text shown as code whatever backticks it holds. */
export function codeSpan(text: Untrusted): string {
  const content = printable(text);
  // Markdown has no empty code span: an empty text shows as one space.
  if (content === '') return '` `';
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // CommonMark strips one space on each side when both are there: pad when the text starts or ends with a backtick or space.
  const pad = /^[` ]|[` ]$/.test(content) ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

/** A fenced code block of these lines (`info` names the language, e.g. `diff`): the fence is longer than any run of backticks in them. */
export function codeBlock(lines: readonly Untrusted[], info = 'text'): string {
  const content = lines.map(printable);
  const longest = Math.max(0, ...content.flatMap((line) => line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, ...content, fence].join('\n');
}

/**
 * A table cell: the text as `markdownText`, or as a code span with `{ code: true }`. GitHub splits a row at
 * every `|` before reading code spans, so one inside a code span is escaped too (the table shows it as `|`).
 */
export function tableCell(text: Untrusted, options: { code?: boolean } = {}): string {
  return options.code ? codeSpan(text).replace(/\|/g, '\\|') : markdownText(text);
}

/** The text of an HTML element written in Markdown, such as `<summary>`: HTML-escaped, Markdown is not read there. */
export function htmlText(text: Untrusted): string {
  return unlinked(printable(text)).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * Inside an HTML comment, e.g. the hidden marker of a pull-request comment: percent-encoded like a URI
 * component, so it can never hold `-->` or `--!>` (which end a comment), a quote, or a line break, and
 * `decodeURIComponent` gives it back.
 */
export function htmlComment(text: Untrusted): string {
  return encodeURIComponent(printable(text)).replace(/[!'()*-]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** GitHub's escaping of workflow-command data: `%`, CR and LF (so the command stays on one line). */
const workflowData = (text: string): string => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** The message of a workflow command (`::error …::MESSAGE`): one line for GitHub, line breaks kept as `%0A`. */
export function annotationMessage(text: string): string {
  return workflowData(safeLines(text));
}

/** A property of a workflow command (`file=`, `title=`): one line, with `:` and `,` escaped too. */
export function annotationProperty(text: Untrusted): string {
  return workflowData(printable(text)).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** What XML 1.0 cannot hold at all, even escaped, once control characters are escaped: lone surrogates, U+FFFE and U+FFFF. */
const NOT_XML = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFFFE\uFFFF]/g;
/** XML's five predefined entities, which every XML reader knows. */
const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xmlEscaped = (text: string): string => text.replace(NOT_XML, '\uFFFD').replace(/[&<>"']/g, (char) => XML_ENTITIES[char]!);

/** The text of an XML element (a JUnit `<failure>`): line breaks kept, markup and what XML cannot hold escaped. */
export function xmlText(text: Untrusted): string {
  return xmlEscaped(typeof text === 'string' ? safeLines(text) : escapeControl(text.name));
}

/** An XML attribute value in double quotes (a JUnit `name`, `message`): one line. */
export function xmlAttribute(text: Untrusted): string {
  return xmlEscaped(printable(text));
}

/** What ends a quoted Mermaid label or is read as markup in it, and the entity code written for each. */
const MERMAID_ENTITIES: Record<string, string> = { '"': '#quot;', '#': '#num;', '&': '#amp;', '<': '#lt;', '>': '#gt;', '`': '#grave;' };

/**
 * The text of a Mermaid node label, written between the quotes of `id["…"]`: the quote that would end it, the
 * `#` of Mermaid's entity codes, `&`, `<` and `>` (labels are drawn as HTML) and the backtick (a Markdown label)
 * are written as named entity codes (`#quot;`), and nothing else inside the quotes is read as grammar.
 */
export function mermaidLabel(text: Untrusted): string {
  return printable(text).replace(/["#&<>`]/g, (char) => MERMAID_ENTITIES[char]!);
}

/** A Graphviz DOT identifier or attribute value: a double-quoted string with its quotes and backslashes escaped, on one line. */
export function dotString(text: Untrusted): string {
  return `"${printable(text).replace(/["\\]/g, '\\$&')}"`;
}

/** What no POSIX shell (sh, bash, zsh) reads specially anywhere in a word; `=` and `~` only where they do not start one. */
const SHELL_PLAIN = /^[A-Za-z0-9_@%+,./:-][A-Za-z0-9_@%+,./:=~-]*$/;

/**
 * One argument of a command line a person copies into a shell: as it is when no shell reads anything in it
 * specially, else in single quotes (a `'` inside written as `'\''`), which every POSIX shell and zsh take
 * literally: `gateway_token.team[payments]/ci` is a glob in zsh and becomes `'gateway_token.team[payments]/ci'`.
 * Control characters are escaped first (they are not valid in any name cplane suggests).
 */
export function shellArgument(text: string): string {
  const printed = escapeControlCharacters(text);
  if (SHELL_PLAIN.test(printed)) return printed;
  // A word never starts a line (`cplane` does), so `::` cannot begin a workflow command; `##[` can stand anywhere, so
  // it is split across two quoted strings, which the shell joins back: the command still runs as printed.
  return `'${printed.replace(/'/g, `'\\''`).replace(/##\[/g, `#''#[`)}'`;
}

/** A cplane command suggested to a person: `cplane` and its words, each quoted when it needs to be. */
export function suggestedCommand(words: readonly string[]): string {
  return ['cplane', ...words.map(shellArgument)].join(' ');
}
