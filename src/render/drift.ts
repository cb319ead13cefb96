/**
 * The report of `cplane drift`: only what changed outside cplane since the
 * last apply, the notices a drift check shows (what is due, the write-only values it could not check, what no
 * operation reads back), and what could not be read. Text for the terminal, Markdown for the step summary and the
 * drift issue, JSON for machines. Made from a refresh-only plan; shows, never
 * computes.
 */
import { wrapText } from '../text/wrap.js';
import { painter as makePainter } from '../paint.js';
import { dueNotices, legacyNoticeFields, type Plan } from '../plan-model/index.js';
import { codeBlock, codeSpan, markdownText, suggestedCommand } from '../text/escape-for.js';
import { accountLabel, changeLines } from './describe.js';
import { diffSymbol, unreadableMarkdown } from './markdown.js';
import { noticeLines, noticesMarkdown } from './notices.js';
import { driftLines, unreadableLines } from './text.js';
import { jsonText } from '../text/json-text.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one line that says whether there is drift, and whether something is due. */
export function driftHeadline(plan: Plan): string {
  const n = plan.drift.length;
  const dueCount = dueNotices(plan).length;
  const due = dueCount ? ` ${plural(dueCount, 'item')} due.` : '';
  if (n > 0) return `Drift: ${plural(n, 'object')} changed outside cplane since the last apply.${due}`;
  if (due) return `No drift, but${due.slice(0, -1)}: \`cplane reconcile\` (or apply) does it.`;
  return plan.unreadable.length > 0
    ? `No drift in what could be read; ${plural(plan.unreadable.length, 'item')} could not be read.`
    : 'No drift: every managed object matches what cplane last applied.';
}

/**
 * `width`: the terminal's, to wrap lines at word boundaries (none: not wrapped); `scope`: the words that run a
 * suggested command for the same folder and deployment (cli/report/hint-scope.ts).
 */
export function renderDriftText(plan: Plan, options: { color: boolean; width?: number; scope?: readonly string[] }): string {
  const paint = makePainter(options.color);
  const out: string[] = [];
  if (plan.origin) out.push(`Account: ${accountLabel(plan)}   Workspace: ${plan.origin.workspace}`, '');
  if (plan.drift.length > 0) out.push(...driftLines(plan, paint), '');
  out.push(...noticeLines(plan.notices, paint), ...unreadableLines(plan, paint));
  out.push(paint('bold', driftHeadline(plan)));
  const scoped = (...words: string[]) => `\`${suggestedCommand([...words.slice(0, 1), ...(options.scope ?? []), ...words.slice(1)])}\``;
  if (plan.drift.length > 0)
    out.push(
      `${scoped('plan')} shows how apply would set these back; ${scoped('plan', '--refresh-only', '--out', 'FILE')} then \`cplane apply FILE\` records them in state instead.`,
    );
  return `${wrapText(out.join('\n'), options.width)}\n`;
}

export function renderDriftMarkdown(plan: Plan): string {
  const name = plan.origin?.accountName;
  // Names and values come from the account and the configuration: each is escaped for its place (src/text/escape-for.ts).
  const account = name ? `${codeSpan(name)} (${codeSpan({ name: plan.account })})` : codeSpan({ name: plan.account });
  const workspace = plan.origin ? `, workspace ${codeSpan({ name: plan.origin.workspace })}` : '';
  const out = [`#### cplane drift for account ${account}${workspace}`, '', `**${markdownText(driftHeadline(plan))}**`, ''];
  if (plan.drift.length > 0) {
    const lines: (string | { name: string })[] = [];
    for (const drift of plan.drift) {
      if (drift.type === 'deleted') {
        lines.push(`- ${drift.address} was ${drift.reason ?? 'deleted outside cplane'}`);
        continue;
      }
      lines.push(`! ${drift.address} ${drift.reason ?? 'was changed outside cplane'}`);
      for (const change of drift.changes)
        for (const { symbol, text } of changeLines(change, false)) lines.push(`${diffSymbol(symbol)}     ${text}`);
    }
    out.push(codeBlock(lines, 'diff'), '');
  }
  out.push(...noticesMarkdown(plan.notices), ...unreadableMarkdown(plan));
  return `${out.join('\n').trimEnd()}\n`;
}

export function renderDriftJson(plan: Plan): string {
  const report = {
    account: plan.account,
    accountName: plan.origin?.accountName ?? null,
    workspace: plan.origin?.workspace,
    hasDrift: plan.drift.length > 0,
    drift: plan.drift,
    hasDue: dueNotices(plan).length > 0,
    notices: plan.notices ?? [],
    unreadable: plan.unreadable,
    // The report's fields before notices, kept for the scripts that read them (docs/planning.md, "Notices").
    due: [],
    notChecked: [],
    notVerifiable: [],
    ...legacyNoticeFields(plan.notices),
  };
  return `${jsonText(report, 2)}\n`;
}
