/**
 * The matrix of `plan --all` (docs/deployments.md): one line per deployment, its counts and whether its plan
 * could be made, as a text table for terminals and as the one pull-request comment for the whole
 * configuration, where each deployment's own plan sits in a collapsible section. Shows, never computes: the
 * lines are DeploymentSummary values made by the command.
 */
import type { DeploymentSummary } from '../plan-model/index.js';
import { painter } from '../paint.js';
import { safeText } from '../text/safe-text.js';
import { codeSpan, htmlText, markdownText, tableCell } from '../text/escape-for.js';

/** The counted columns: `import` and `move` only when a row counts one (most runs adopt and rename nothing). */
function columnsOf(rows: readonly DeploymentSummary[]): { name: string; count: (row: DeploymentSummary) => number }[] {
  return [
    { name: 'add', count: (row) => row.add },
    { name: 'change', count: (row) => row.change },
    { name: 'replace', count: (row) => row.replace },
    { name: 'remove', count: (row) => row.remove },
    ...(rows.some((row) => row.import > 0) ? [{ name: 'import', count: (row: DeploymentSummary) => row.import }] : []),
    ...(rows.some((row) => row.move > 0) ? [{ name: 'move', count: (row: DeploymentSummary) => row.move }] : []),
    { name: 'policy', count: (row) => row.policyViolations },
    { name: 'incomplete', count: (row) => row.incomplete },
  ];
}

function cells(row: DeploymentSummary, columns: ReturnType<typeof columnsOf>): string[] {
  return columns.map((c) => (row.error ? '-' : String(c.count(row))));
}

/** What the row's plan amounts to, in words. */
function status(row: DeploymentSummary): string {
  if (row.error) return `error: ${row.error}`;
  if (row.blocked) return 'refused by a mandatory policy';
  if (row.incomplete > 0) return row.changes ? 'changes, incomplete' : 'incomplete';
  return row.changes ? 'changes' : 'no changes';
}

const accountOf = (row: DeploymentSummary) =>
  row.accountName ? `${safeText(row.accountName)} (${safeText(row.account)})` : safeText(row.account);

export function renderDeploymentMatrixText(rows: readonly DeploymentSummary[], options: { color: boolean }): string {
  const columns = columnsOf(rows);
  const header = ['DEPLOYMENT', 'ACCOUNT', ...columns.map((c) => c.name.toUpperCase()), 'STATUS'];
  const body = rows.map((row) => [safeText(row.deployment), accountOf(row), ...cells(row, columns), status(row)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (i === header.length - 1 ? 0 : r[i]!.length))));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : i >= 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const paint = painter(options.color);
  const colored = (row: DeploymentSummary, text: string) =>
    row.error || row.blocked ? paint('error', text) : row.incomplete > 0 ? paint('warn', text) : row.changes ? paint('change', text) : text;
  const total = rows.length;
  const failed = rows.filter((r) => r.error).length;
  const changed = rows.filter((r) => !r.error && r.changes).length;
  const heading = `Deployments: ${total} planned, ${changed} with changes, ${total - failed - changed} without${failed > 0 ? `, ${failed} failed` : ''}.`;
  return `${heading}\n\n${line(header)}\n${rows.map((row, i) => colored(row, line(body[i]!))).join('\n')}\n`;
}

export interface DeploymentSection {
  deployment: string;
  /** The deployment's plan (or its error) as Markdown, as `plan --markdown` renders it. */
  markdown: string;
}

/**
 * The one comment: a heading, the matrix, then one `<details>` per deployment while they fit in `limit`
 * characters; the sections that do not are named at the end (their plans are in the step summary).
 */
export function renderDeploymentsMarkdown(
  rows: readonly DeploymentSummary[],
  sections: readonly DeploymentSection[],
  options: { title: string; limit: number },
): { markdown: string; left: string[] } {
  const columns = columnsOf(rows);
  const head = [
    `### ${markdownText(options.title)}`,
    '',
    `| deployment | account | ${columns.map((c) => c.name).join(' | ')} | status |`,
    `|---|---|${columns.map(() => '---:').join('|')}|---|`,
    ...rows.map(
      (row) =>
        `| ${tableCell({ name: row.deployment })} | ${tableCell(row.account, { code: true })}${row.accountName ? ` ${tableCell(row.accountName)}` : ''} | ${cells(row, columns).join(' | ')} | ${tableCell(status(row))} |`,
    ),
    '',
  ].join('\n');
  const left: string[] = [];
  // Room kept for the closing note, which names what was left out.
  const reserve = 400 + rows.reduce((n, row) => n + row.deployment.length + 4, 0);
  let body = head;
  for (const section of sections) {
    const part = `\n<details><summary>${htmlText({ name: section.deployment })}</summary>\n\n${section.markdown.trim()}\n\n</details>\n`;
    // A plan too long for what is left is named at the end; a shorter one after it may still fit.
    if (body.length + part.length + reserve <= options.limit) body += part;
    else left.push(section.deployment);
  }
  if (left.length > 0) {
    body += `\n> The plans of ${left.map((name) => codeSpan({ name })).join(', ')} do not fit in one pull-request comment (${options.limit.toLocaleString('en-US')} characters): they are in the job's step summary.\n`;
  }
  return { markdown: body, left };
}
