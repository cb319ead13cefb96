/**
 * The access report in four forms: aligned text for a terminal, JSON (schema/access-report.schema.json), CSV
 * (RFC 4180) for a spreadsheet and Markdown for a review. Names come from the account and are untrusted: each
 * form escapes them for where it is read (control characters in text, markup in Markdown, formulas in CSV).
 * Nothing here computes: the report is made by access/access-report.ts.
 */
import type { AccessFlag, AccessFlagCode, AccessReader, AccessReport } from '../plan-model/index.js';
import { tableCell } from '../text/escape-for.js';
import { escapeControl } from '../text/safe-text.js';
import { jsonText } from '../text/json-text.js';

export type AccessReportFormat = 'text' | 'json' | 'csv' | 'markdown';
export const accessReportFormats: readonly AccessReportFormat[] = ['text', 'json', 'csv', 'markdown'];

const utcMinute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const typeWords: Record<AccessReader['type'], string> = { service_account: 'Service Account', user: 'user', group: 'group' };

/** How the reader reads the record, in words. */
function through(reader: AccessReader): string {
  switch (reader.via) {
    case 'service-account-grant':
      return 'grant';
    case 'user-share':
    case 'group-share':
      return 'share';
    case 'project-group-role':
      return `project role ${reader.role ?? ''} (not verifiable)`;
    case 'former':
      return 'no grant now';
  }
}

/** One flag in words. */
export function flagWords(flag: AccessFlag): string {
  switch (flag.code) {
    case 'unmanaged':
      return 'unmanaged (not in the configuration)';
    case 'not-granted':
      return 'not granted yet (the next apply grants it)';
    case 'may-hold-version':
      return `may hold version ${flag.version} (read ${utcMinute(flag.readAt)}): rotate the value`;
    case 'inactive':
      return `Service Account ${flag.status}`;
    case 'unused':
      return `unused for ${flag.days} days (${flag.lastRead === null ? 'never read' : `last read ${utcMinute(flag.lastRead)}`})`;
    case 'ends-soon':
      return `ends ${flag.left} (${utcMinute(flag.until)})`;
    case 'ended':
      return `ended ${utcMinute(flag.until)}: the next plan revokes it`;
  }
}

const flagNouns: Record<AccessFlagCode, string> = {
  unmanaged: 'unmanaged',
  'not-granted': 'not granted yet',
  'may-hold-version': 'may hold a version',
  inactive: 'inactive Service Account',
  unused: 'unused',
  'ends-soon': 'ending within 7 days',
  ended: 'ended',
};

function counts(report: AccessReport): { records: number; readers: number; flagged: string } {
  const readers = report.readerCount;
  const flagged = (Object.keys(flagNouns) as AccessFlagCode[])
    .filter((code) => report.flagged[code] > 0)
    .map((code) => `${report.flagged[code]} ${flagNouns[code]}`)
    .join(', ');
  return { records: report.records.length, readers, flagged: flagged || 'none' };
}

function headline(report: AccessReport): string {
  const audit = report.auditRead
    ? `unused: not read in ${report.unusedDays} days`
    : 'the audit feed could not be read: nothing is flagged unused or may hold a version';
  return `account ${report.account}, API clock ${utcMinute(report.now)}; ${audit}`;
}

const version = (v: number | null) => (v === null ? 'no value' : `version ${v}`);

/** Aligned text; every name escaped for the terminal. */
export function renderAccessReportText(report: AccessReport): string {
  const rows = report.records.map((record) => ({
    title: [
      escapeControl(`${record.project}/${record.name}`),
      record.address ? escapeControl(record.address) : 'not in the configuration',
      version(record.currentVersion),
    ].join('  '),
    readers: record.readers.map((reader) => [
      typeWords[reader.type],
      escapeControl(reader.name),
      through(reader),
      reader.flags.map(flagWords).join('; '),
    ]),
  }));
  const widths = [0, 1, 2].map((i) => rows.reduce((w, r) => r.readers.reduce((inner, cells) => Math.max(inner, cells[i]!.length), w), 0));
  const lines = [`Access report: ${headline(report)}`, ''];
  for (const row of rows) {
    lines.push(row.title);
    if (row.readers.length === 0) lines.push('  (no readers)');
    for (const cells of row.readers)
      lines.push(`  ${cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ')}`.trimEnd());
    lines.push('');
  }
  const { records, readers, flagged } = counts(report);
  lines.push(`${records} record${records === 1 ? '' : 's'}, ${readers} reader${readers === 1 ? '' : 's'}. Flagged: ${flagged}.`);
  return `${lines.join('\n')}\n`;
}

/** JSON with a stable shape (schema/access-report.schema.json). */
export function renderAccessReportJson(report: AccessReport): string {
  return `${jsonText({ formatVersion: 1, ...report }, 2)}\n`;
}

/**
 * One CSV cell: control characters escaped, a cell a spreadsheet would read as a formula (starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return) prefixed with `'`, and quoted as RFC 4180 says when it holds a quote, a
 * comma or a line break.
 */
export function csvCell(text: string): string {
  const printable = escapeControl(text);
  const inert = /^[=+\-@\t\r]/.test(printable) ? `'${printable}` : printable;
  return /[",\r\n]/.test(inert) ? `"${inert.replace(/"/g, '""')}"` : inert;
}

/** The header row, as written. */
const CSV_HEADER =
  'project,record,record_id,address,version,reader_type,reader,reader_id,through,role,live,status,last_read,until,reason,flags';

/** CSV (RFC 4180: CRLF line ends, a header row): one row per reader. */
export function renderAccessReportCsv(report: AccessReport): string {
  const rows: string[][] = [];
  for (const record of report.records) {
    for (const reader of record.readers) {
      rows.push([
        record.project,
        record.name,
        record.recordId,
        record.address ?? '',
        record.currentVersion === null ? '' : String(record.currentVersion),
        reader.type,
        reader.name,
        reader.id,
        reader.via,
        reader.role ?? '',
        reader.live === null ? 'unknown' : String(reader.live),
        reader.status ?? '',
        reader.lastRead ?? '',
        reader.until ?? '',
        reader.reason ?? '',
        reader.flags.map(flagWords).join('; '),
      ]);
    }
  }
  return [CSV_HEADER, ...rows.map((row) => row.map(csvCell).join(','))].map((line) => `${line}\r\n`).join('');
}

/** Markdown: the headline, the flagged counts and one table row per reader. */
export function renderAccessReportMarkdown(report: AccessReport): string {
  const { records, readers, flagged } = counts(report);
  const lines = [
    '## Access report',
    '',
    tableCell(headline(report)),
    '',
    `**${records} record${records === 1 ? '' : 's'}, ${readers} reader${readers === 1 ? '' : 's'}.** Flagged: ${flagged}.`,
    '',
  ];
  lines.push('| Record | Version | Reader | Type | Through | Flags |', '|---|---|---|---|---|---|');
  for (const record of report.records) {
    const name = tableCell({ name: `${record.project}/${record.name}` }, { code: true });
    if (record.readers.length === 0) lines.push(`| ${name} | ${version(record.currentVersion)} | (no readers) | | | |`);
    for (const reader of record.readers) {
      lines.push(
        `| ${name} | ${version(record.currentVersion)} | ${tableCell({ name: reader.name })} | ${typeWords[reader.type]} | ${tableCell(through(reader))} | ${tableCell(reader.flags.map(flagWords).join('; '))} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The report in the form asked for. */
export function renderAccessReport(report: AccessReport, format: AccessReportFormat): string {
  switch (format) {
    case 'text':
      return renderAccessReportText(report);
    case 'json':
      return renderAccessReportJson(report);
    case 'csv':
      return renderAccessReportCsv(report);
    case 'markdown':
      return renderAccessReportMarkdown(report);
  }
}
