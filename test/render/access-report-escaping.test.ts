// The access report with the hostile strings of test/text/hostile-strings.ts as every name that comes from the account
// (project, record, Service Account) and as a grant's reason: the text has no control character left, the Markdown
// (read with markdown-it) has only the report's own elements and one row of six cells per reader, and the CSV has
// one line per reader, each of 16 cells, none starting a formula.
import MarkdownIt from 'markdown-it';
import { expect, it } from 'vitest';
import type { AccessReport } from '../../src/plan-model/index.js';
import { renderAccessReport } from '../../src/render/index.js';
import { HOSTILE } from '../text/hostile-strings.js';

const md = new MarkdownIt({ html: true });
const OWN_TAGS = new Set(['h2', 'p', 'strong', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'code']);
/** A control character other than the line feed that ends each line, DEL, or a bidi embedding or override. */
const unprintable = (c: string) => {
  const code = c.charCodeAt(0);
  return (code < 0x20 && c !== '\n') || code === 0x7f || (code >= 0x202a && code <= 0x202e);
};
const ID = '0e000000-0000-4000-8000-000000000001';

function reportNaming(text: string): AccessReport {
  const reader = (name: string) => ({
    type: 'service_account' as const,
    id: ID,
    name,
    via: 'service-account-grant' as const,
    live: true,
    reason: text,
    until: '2026-12-01T18:00:00.000Z',
    flags: [{ code: 'unmanaged' as const }, { code: 'ends-soon' as const, until: '2026-12-01T18:00:00.000Z', left: 'in 3 days' }],
  });
  return {
    account: '0a000000-0000-4000-8000-000000000001',
    now: '2026-11-28T18:00:00.000Z',
    unusedDays: 90,
    auditRead: true,
    readerCount: 2,
    records: [
      {
        recordId: '1b000000-0000-4000-8000-000000000001',
        projectId: '1a000000-0000-4000-8000-000000000001',
        project: text,
        name: text,
        currentVersion: 2,
        readers: [reader(text), reader(`=${text}`)],
      },
    ],
    flagged: { unmanaged: 2, 'not-granted': 0, 'may-hold-version': 0, inactive: 0, unused: 0, 'ends-soon': 2, ended: 0 },
  };
}

it.each(HOSTILE.filter((text) => text !== ''))('%j', (text) => {
  const report = reportNaming(text);
  expect([...renderAccessReport(report, 'text')].filter(unprintable)).toEqual([]);

  const html = md.render(renderAccessReport(report, 'markdown'));
  const tags = new Set([...html.matchAll(/<\/?([a-z0-9]+)/gi)].map((m) => m[1]!.toLowerCase()));
  expect([...tags].filter((tag) => !OWN_TAGS.has(tag))).toEqual([]);
  expect(html).not.toMatch(/<!--/);
  const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => (m[1]!.match(/<t[dh]>/g) ?? []).length);
  expect(rows).toEqual([6, 6, 6]);

  const lines = renderAccessReport(report, 'csv').split('\r\n');
  expect(lines).toHaveLength(4);
  for (const line of lines.slice(1, 3)) {
    // Split at the commas outside quotes: every cell is one of the 16 columns, and none would start a formula.
    const cells = line
      .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
      .filter((c) => c !== '')
      .map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
    expect(cells).toHaveLength(16);
    for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@]/);
  }
});
