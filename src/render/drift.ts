/**
 * The report of `cplane drift`: only what changed outside cplane since the
 * last apply, the write-only values it could not check, and what could not
 * be read. Text for the terminal, Markdown for the step summary and the
 * drift issue, JSON for machines. Made from a refresh-only plan; shows, never
 * computes.
 */
import { painter as makePainter } from '../paint.js';
import type { Plan } from '../plan-model/index.js';
import { safeLines, safeText } from '../text/safe-text.js';
import { accountLabel, changeLines } from './describe.js';
import { cell, diffSymbol, fenced, notCheckedMarkdown, unreadableMarkdown } from './markdown.js';
import { driftLines, notCheckedLines, unreadableLines } from './text.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one line that says whether there is drift. */
export function driftHeadline(plan: Plan): string {
  const n = plan.drift.length;
  if (n > 0) return `Drift: ${plural(n, 'object')} changed outside cplane since the last apply.`;
  return plan.unreadable.length > 0
    ? `No drift in what could be read; ${plural(plan.unreadable.length, 'item')} could not be read.`
    : 'No drift: every managed object matches what cplane last applied.';
}

export function renderDriftText(plan: Plan, options: { color: boolean }): string {
  const paint = makePainter(options.color);
  const out: string[] = [];
  if (plan.context) out.push(`Account: ${accountLabel(plan)}   Workspace: ${plan.context.workspace}`, '');
  if (plan.drift.length > 0) out.push(...driftLines(plan, paint), '');
  out.push(...notCheckedLines(plan, paint), ...unreadableLines(plan, paint));
  out.push(paint('bold', driftHeadline(plan)));
  if (plan.drift.length > 0) out.push('`cplane plan` shows how apply would set these back; `cplane plan --refresh-only --out FILE` then `cplane apply FILE` records them in state instead.');
  return `${out.join('\n')}\n`;
}

export function renderDriftMarkdown(plan: Plan): string {
  const name = plan.context?.accountName;
  // The account name comes from the API: shown as code, so it cannot add Markdown or HTML.
  const account = name ? `\`${cell(safeText(name)).replace(/`/g, "'")}\` (\`${plan.account}\`)` : `\`${plan.account}\``;
  const workspace = plan.context ? `, workspace \`${cell(plan.context.workspace)}\`` : '';
  const out = [`#### cplane drift for account ${account}${workspace}`, '', `**${driftHeadline(plan)}**`, ''];
  if (plan.drift.length > 0) {
    out.push('```diff');
    for (const drift of plan.drift) {
      if (drift.type === 'deleted') {
        out.push(fenced(`- ${drift.address} was ${drift.reason ?? 'deleted outside cplane'}`));
        continue;
      }
      out.push(fenced(`! ${drift.address} ${drift.reason ?? 'was changed outside cplane'}`));
      for (const change of drift.changes) for (const { symbol, text } of changeLines(change, false)) out.push(fenced(`${diffSymbol(symbol)}     ${text}`));
    }
    out.push('```', '');
  }
  out.push(...notCheckedMarkdown(plan), ...unreadableMarkdown(plan));
  return `${safeLines(out.join('\n').trimEnd())}\n`;
}

export function renderDriftJson(plan: Plan): string {
  const report = {
    account: plan.account,
    accountName: plan.context?.accountName ?? null,
    workspace: plan.context?.workspace,
    hasDrift: plan.drift.length > 0,
    drift: plan.drift,
    notChecked: plan.notChecked ?? [],
    unreadable: plan.unreadable,
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}
