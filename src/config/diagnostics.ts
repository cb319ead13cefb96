/**
 * Diagnostics: building them with a position and a source snippet, and
 * printing them for people (`file:line:col: error: ...` with a caret) and for
 * GitHub Actions (`::error file=...::...` annotations on pull-request lines).
 */
import type { LineCounter } from 'yaml';
import { painter } from '../paint.js';
import type { Diagnostic, Severity } from './types.js';
import { annotationMessage, annotationProperty } from '../text/escape-for.js';

export type DiagnosticSink = Diagnostic[];

interface PositionedText {
  display: string;
  text: string;
  lines: LineCounter;
  /** For a module's file: the call it is read for (`module.payments, called at main.yaml:3:3`), named in every diagnostic. */
  within?: string;
  /** Its text is never quoted in a snippet (source-file.ts: a file with more than one hard link). */
  unquoted?: boolean;
}

export interface DiagnosticInit {
  code: string;
  summary: string;
  detail?: string;
  severity?: Severity;
  /** End offset of the span to underline (defaults to one character). */
  end?: number;
  /** Hide the span's text in the snippet: it may be a secret. */
  redact?: boolean;
}

/** A diagnostic at `offset` of a file, with the source line and a caret under the span. */
export function diagnosticAt(file: PositionedText, offset: number, init: DiagnosticInit): Diagnostic {
  const { line, col } = file.lines.linePos(offset);
  const lineStart = offset - (col - 1);
  const newline = file.text.indexOf('\n', lineStart);
  let source = file.text.slice(lineStart, newline === -1 ? undefined : newline).replace(/\r$/, '');
  let width = Math.max(1, Math.min((init.end ?? offset + 1) - offset, source.length - (col - 1)));
  if (file.unquoted) {
    source = `${' '.repeat(col - 1)}<not quoted: the file has more than one hard link>`;
    width = 1;
  } else if (init.redact) {
    source = `${source.slice(0, col - 1)}<redacted>`;
    width = '<redacted>'.length;
  }
  const gutter = String(line).padStart(4);
  const snippet = `${gutter} | ${source.replace(/\t/g, ' ')}\n${' '.repeat(gutter.length)} | ${' '.repeat(col - 1)}${'^'.repeat(width)}`;
  const diagnostic: Diagnostic = {
    severity: init.severity ?? 'error',
    code: init.code,
    summary: file.within ? `${init.summary} (in ${file.within})` : init.summary,
    range: { file: file.display, line, col },
    snippet,
  };
  if (init.detail) diagnostic.detail = init.detail;
  return diagnostic;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Errors first within a file, files and positions in order. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort(
    (a, b) =>
      (a.range?.file ?? '').localeCompare(b.range?.file ?? '') ||
      (a.range?.line ?? 0) - (b.range?.line ?? 0) ||
      (a.range?.col ?? 0) - (b.range?.col ?? 0),
  );
}

/** `file:line:col: error: summary`, the snippet with its caret, then the detail. */
export function formatDiagnostic(d: Diagnostic, options: { color: boolean }): string {
  const paint = painter(options.color);
  const where = d.range ? `${d.range.file}:${d.range.line}:${d.range.col}: ` : '';
  const label = d.severity === 'error' ? paint('bold-error', 'error') : paint('bold-warn', 'warning');
  const lines = [`${paint('bold', where)}${label}: ${paint('bold', d.summary)}`];
  if (d.snippet) {
    const [source, caret] = d.snippet.split('\n');
    lines.push(source ?? '');
    if (caret !== undefined) lines.push(caret.replace(/\^+/, (m) => paint(d.severity === 'error' ? 'error' : 'warn', m)));
  }
  if (d.detail) lines.push(...d.detail.split('\n').map((l) => `  ${paint('dim', l)}`));
  return lines.join('\n');
}

/** One GitHub Actions workflow command, e.g. `::error file=main.yaml,line=3,col=5,title=unknown_key::...`. */
export function formatGithub(d: Diagnostic): string {
  const properties = [];
  if (d.range) properties.push(`file=${annotationProperty({ name: d.range.file })}`, `line=${d.range.line}`, `col=${d.range.col}`);
  properties.push(`title=${annotationProperty({ name: d.code })}`);
  const message = d.detail ? `${d.summary}\n${d.detail}` : d.summary;
  return `::${d.severity} ${properties.join(',')}::${annotationMessage(message)}`;
}
