/**
 * The plan as Markdown for a pull-request comment: the summary line in bold,
 * a table of the steps, and the field changes in a collapsible <details>
 * block (a `diff` code block, so GitHub colours additions and removals), then
 * the graph of the changes (a `mermaid` block, which GitHub draws).
 */
import { actionWords, stepGraph, type Plan } from '../plan-model/index.js';
import { codeBlock, codeSpan, markdownText, tableCell } from '../text/escape-for.js';
import { changeLines, noChangesLine, PENDING_HEADING, pendingWriteLine, summaryLine } from './describe.js';
import { noticesMarkdown } from './notices.js';
import { findingLines, policyHeadline, refusedLine } from './policies.js';
import { renderGraphMermaid } from './graph.js';
import { spendHeadline, spendLines, spendNotRead } from './spend.js';

/** GitHub colours `+` and `-` lines of a diff block; every other change is marked `!`. */
export const diffSymbol = (symbol: string) => (symbol === '+' || symbol === '-' || symbol === ' ' ? symbol : '!');

/** The most changed addresses drawn as a graph: beyond it a drawing is too large to read, and the table says it all. */
export const MAX_GRAPHED_CHANGES = 50;

/**
 * The changed addresses and which waits for which, as a Mermaid flowchart GitHub draws (read off the steps by
 * `stepGraph`, drawn by graph.ts); none for more than MAX_GRAPHED_CHANGES changes.
 */
export function changeGraphMarkdown(plan: Plan): string[] {
  const graph = stepGraph(plan.steps, (step) => step.action !== 'no-op');
  if (graph.nodes.length === 0 || graph.nodes.length > MAX_GRAPHED_CHANGES) return [];
  const lines = renderGraphMermaid(graph)
    .trimEnd()
    .split('\n')
    .map((line) => ({ name: line }));
  return ['<details><summary>Graph of the changes</summary>', '', codeBlock(lines, 'mermaid'), '', '</details>', ''];
}

/** What could not be read, as a quoted list. */
export function unreadableMarkdown(plan: Plan): string[] {
  if (plan.unreadable.length === 0) return [];
  return [
    '> **Could not be read** (nothing is planned for these):',
    ...plan.unreadable.map((u) => {
      const what = u.address ? codeSpan({ name: u.address }) : `every ${markdownText({ name: u.kind })}`;
      return `> - ${what}: ${codeSpan({ name: u.operation })} ${markdownText(u.reason)}${u.requestId ? ` (request id ${codeSpan(u.requestId)})` : ''}`;
    }),
    '',
  ];
}

/** Spend: the headline in bold and the gateways and tokens in a table (its warnings are notices). */
export function spendMarkdown(plan: Plan): string[] {
  const spend = plan.spend;
  if (!spend) return [];
  const out = [`**${markdownText(spendHeadline(spend))}**`, ''];
  const lines = spendLines(spend);
  const notRead = spendNotRead(spend);
  if (notRead) out.push(`> ${markdownText(notRead)}`, '');
  out.push('| Spend | Before → after, per 30 days |', '|---|---|');
  for (const line of lines)
    out.push(`| ${line.depth === 1 ? '↳ ' : ''}${tableCell({ name: line.name }, { code: true })} | ${tableCell(line.text)} |`);
  out.push('');
  return out;
}

/**
 * Every text from configuration, state or the API goes through the function of src/text/escape-for.ts for the
 * place it is written (addresses and names as `{ name }`: never redacted), so it cannot add Markdown, HTML or a
 * mention to the comment; the words cplane writes itself are plain.
 */
export function renderPlanMarkdown(plan: Plan): string {
  const out: string[] = [];
  const headline = noChangesLine(plan) ?? summaryLine(plan);
  const acting = plan.steps.filter((s) => s.action !== 'no-op');
  const name = plan.origin?.accountName;
  const account = name ? `${codeSpan(name)} (${codeSpan({ name: plan.account })})` : codeSpan({ name: plan.account });
  const workspace = plan.origin ? `, workspace ${codeSpan({ name: plan.origin.workspace })}` : '';
  out.push(
    `#### cplane plan${plan.mode !== 'normal' ? ` (${plan.mode})` : ''} for account ${account}${workspace}`,
    '',
    `**${markdownText(headline)}**`,
    '',
  );
  const refused = refusedLine(plan);
  if (refused) out.push('> [!CAUTION]', `> **${markdownText(refused)}**`, '');

  if (acting.length > 0) {
    out.push('| | Address | Action | Why |', '|---|---|---|---|');
    for (const step of acting) {
      const moved = step.moved ? `moved from ${tableCell({ name: step.moved.from }, { code: true })}` : undefined;
      const why = [moved, ...[step.reason, ...(step.notes ?? [])].filter((t): t is string => Boolean(t)).map((t) => tableCell(t))]
        .filter(Boolean)
        .join('; ');
      out.push(
        `| \`${actionWords[step.action].symbol}\` | ${tableCell({ name: step.address }, { code: true })} | ${step.action} | ${why} |`,
      );
    }
    const diff: (string | { name: string })[] = [];
    for (const step of acting) {
      const words = actionWords[step.action].future;
      const symbol = diffSymbol(actionWords[step.action].symbol);
      diff.push({
        name: `${symbol} ${step.action === 'move' && step.moved ? `${step.moved.from} ${words} ${step.address}` : `${step.address} ${words}`}`,
      });
      for (const change of step.changes) {
        for (const { symbol, text } of changeLines(change, step.action === 'create')) diff.push(`${diffSymbol(symbol)}     ${text}`);
      }
    }
    out.push('', '<details><summary>Changes by field</summary>', '', codeBlock(diff, 'diff'), '', '</details>', '');
    out.push(...changeGraphMarkdown(plan));
  }

  if (plan.drift.length > 0) {
    out.push(`<details><summary>Changed outside cplane (${plan.drift.length})</summary>`, '');
    for (const drift of plan.drift) {
      const fields = drift.changes.map((c) => codeSpan({ name: c.path })).join(', ');
      const what =
        drift.type === 'deleted'
          ? markdownText(drift.reason ?? 'deleted outside cplane')
          : drift.reason
            ? markdownText(drift.reason)
            : `changed (${fields})`;
      out.push(`- ${codeSpan({ name: drift.address })}: ${what}`);
    }
    out.push('', '</details>', '');
  }

  if (plan.pendingWrites?.length) {
    out.push(`> **${PENDING_HEADING}**`);
    for (const write of plan.pendingWrites) out.push(`> - ${markdownText(pendingWriteLine(write))}`);
    out.push('');
  }

  out.push(...noticesMarkdown(plan.notices), ...spendMarkdown(plan));

  const policies = policyHeadline(plan);
  if (policies) {
    out.push(`**${markdownText(policies)}**`, '');
    const findings = findingLines(plan);
    if (findings.length > 0) {
      out.push('| | Policy finding | Where |', '|---|---|---|');
      for (const f of findings)
        out.push(`| \`${f.symbol}\` | ${tableCell(f.text)} | ${f.place ? tableCell({ name: f.place }, { code: true }) : ''} |`);
      out.push('');
    }
  }
  out.push(...unreadableMarkdown(plan));
  return `${out.join('\n').trimEnd()}\n`;
}
