/**
 * The plan as Markdown for a pull-request comment: the summary line in bold,
 * a table of the steps, and the field changes in a collapsible <details>
 * block (a `diff` code block, so GitHub colours additions and removals).
 */
import { actionWords, type Plan } from '../plan-model/index.js';
import { safeLines, safeText } from '../text/safe-text.js';
import { changeLines, noChangesLine, summaryLine, withoutValueNote } from './describe.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** GitHub colours `+` and `-` lines of a diff block; every other change is marked `!`. */
const diffSymbol = (symbol: string) => (symbol === '+' || symbol === '-' || symbol === ' ' ? symbol : '!');
/** Keeps a value from closing the code fence it is shown in. */
const fenced = (text: string) => text.replace(/```/g, '`\u200b``');

export function renderPlanMarkdown(plan: Plan): string {
  const out: string[] = [];
  const headline = noChangesLine(plan) ?? summaryLine(plan);
  const acting = plan.steps.filter((s) => s.action !== 'no-op');
  const name = plan.context?.accountName;
  // The name comes from the API: shown as code, so it cannot add Markdown or HTML to the comment.
  const account = name ? `\`${cell(safeText(name)).replace(/`/g, "'")}\` (\`${plan.account}\`)` : `\`${plan.account}\``;
  const workspace = plan.context ? `, workspace \`${cell(plan.context.workspace)}\`` : '';
  out.push(`#### cplane plan${plan.mode !== 'normal' ? ` (${plan.mode})` : ''} for account ${account}${workspace}`, '', `**${headline}**`, '');

  if (acting.length > 0) {
    out.push('| | Address | Action | Why |', '|---|---|---|---|');
    for (const step of acting) {
      const moved = step.moved ? `moved from \`${cell(step.moved.from)}\`` : undefined;
      out.push(`| \`${actionWords[step.action].symbol}\` | \`${cell(step.address)}\` | ${step.action} | ${cell([moved, step.reason, ...(step.notes ?? [])].filter(Boolean).join('; '))} |`);
    }
    out.push('', '<details><summary>Changes by field</summary>', '', '```diff');
    for (const step of acting) {
      const words = actionWords[step.action].future;
      out.push(`${diffSymbol(actionWords[step.action].symbol)} ${step.action === 'move' && step.moved ? `${step.moved.from} ${words} ${step.address}` : `${step.address} ${words}`}`);
      for (const change of step.changes) {
        for (const { symbol, text } of changeLines(change, step.action === 'create')) out.push(fenced(`${diffSymbol(symbol)}     ${text}`));
      }
    }
    out.push('```', '', '</details>', '');
  }

  if (plan.drift.length > 0) {
    out.push(`<details><summary>Changed outside cplane (${plan.drift.length})</summary>`, '');
    for (const drift of plan.drift) {
      const fields = drift.changes.map((c) => `\`${cell(c.path)}\``).join(', ');
      out.push(`- \`${drift.address}\`: ${drift.type === 'deleted' ? (drift.reason ?? 'deleted outside cplane') : (drift.reason ?? `changed (${fields})`)}`);
    }
    out.push('', '</details>', '');
  }

  if (plan.unreadable.length > 0) {
    out.push(`> **Could not be read** (nothing is planned for these):`);
    for (const u of plan.unreadable) {
      out.push(`> - ${u.address ? `\`${u.address}\`` : `every ${u.kind}`}: \`${u.operation}\` ${cell(u.reason)}${u.requestId ? ` (request id \`${u.requestId}\`)` : ''}`);
    }
    out.push('');
  }
  const empty = withoutValueNote(plan);
  if (empty) out.push(`> **${empty.what}**: ${empty.addresses.map((a) => `\`${cell(a)}\``).join(', ')}`, `> ${empty.todo}`, '');
  // Names and values come from configuration and the API: escaped and redacted (no colour here to keep).
  return `${safeLines(out.join('\n').trimEnd())}\n`;
}
