/**
 * The plan as text for a terminal, in the Terraform manner: drift first, then
 * one block per step (`+ create`, `~ update`, `-/+ replace`, `- remove`,
 * `> import`, `-> move`, `. forget`) with its field changes, reason and notes, what could not be
 * read, the spend, the policies, the plan's notices, and the summary line. Colour is a parameter: the command decides it.
 */
import { actionWords, localPart, type PendingWrite, type Plan, type PlanStep, type Tone } from '../plan-model/index.js';
import { painter as makePainter, type Paint } from '../paint.js';
import { safeName, safeText } from '../text/safe-text.js';
import { wrapText } from '../text/wrap.js';
import { accountLabel, changeLines, noChangesLine, PENDING_HEADING, pendingWriteLine, summaryLine } from './describe.js';
import { noticeLines } from './notices.js';
import { findingLines, policyHeadline, refusedLine } from './policies.js';
import { spendHeadline, spendLines, spendNotRead } from './spend.js';
import { offboardLines } from './offboard.js';

export interface TextOptions {
  color: boolean;
  /** Terminal width: lines are wrapped at word boundaries to fit it, and the rules between sections span it. Without one (not a terminal), nothing is wrapped and rules are 80 wide. */
  width?: number;
}

const symbolTone: Record<string, Tone> = { '+': 'add', '-': 'remove', '~': 'change', ' ': 'plain' };

function renderStep(step: PlanStep, paint: Paint): string[] {
  const words = actionWords[step.action];
  // Names and values come from configuration and the API: escaped (and redacted) before colour is added.
  const address = safeName(step.address);
  const header =
    step.action === 'move' && step.moved
      ? `${paint('bold', `# ${safeName(step.moved.from)}`)} ${words.future} ${address}`
      : `${paint('bold', `# ${address}`)} ${words.future}`;
  const lines = [`  ${header}${step.reason ? ` (${safeText(step.reason)})` : ''}`];
  if (step.moved && step.action !== 'move') lines.push(`  ${paint('bold', `# (moved from ${safeName(step.moved.from)})`)}`);
  lines.push(
    `  ${paint(words.tone, words.symbol.padEnd(3))} ${step.kind} "${safeName(localPart(step.address))}"${step.adopt ? ` (id ${safeText(step.adopt.id)})` : ''}`,
  );
  const creating = step.action === 'create';
  for (const change of step.changes) {
    for (const { symbol, text } of changeLines(change, creating)) {
      lines.push(`      ${paint(symbolTone[symbol] ?? 'plain', symbol)} ${safeText(text)}`);
    }
  }
  for (const note of step.notes ?? []) lines.push(`      ${paint('warn', `! ${safeText(note)}`)}`);
  return lines;
}

/** What changed outside cplane, object by object, field by field. */
export function driftLines(plan: Plan, paint: Paint): string[] {
  const out = [paint('bold', 'Objects changed outside cplane since the last apply:'), ''];
  for (const drift of plan.drift) {
    if (drift.type === 'deleted') {
      out.push(`  ${paint('remove', '-')} ${safeName(drift.address)} was ${safeText(drift.reason ?? 'deleted outside cplane')}`);
      continue;
    }
    out.push(
      `  ${paint('change', '~')} ${safeName(drift.address)} ${drift.reason ? safeText(drift.reason) : 'was changed outside cplane'}`,
    );
    for (const change of drift.changes)
      for (const { symbol, text } of changeLines(change, false))
        out.push(`      ${paint(symbolTone[symbol] ?? 'plain', symbol)} ${safeText(text)}`);
  }
  return out;
}

/** What could not be read, one line each. */
export function unreadableLines(plan: Plan, paint: Paint): string[] {
  if (plan.unreadable.length === 0) return [];
  return [
    paint('warn', 'Could not be read (nothing is planned for these):'),
    ...plan.unreadable.map(
      (u) =>
        `  ${paint('warn', '!')} ${safeName(u.address ?? `every ${u.kind}`)}: ${safeName(u.operation)}: ${safeText(`${u.reason}${u.requestId ? ` (request id ${u.requestId})` : ''}`)}`,
    ),
    '',
  ];
}

function pendingWritesLines(writes: readonly PendingWrite[], paint: Paint): string[] {
  return [paint('warn', PENDING_HEADING), ...writes.map((write) => `  ${paint('warn', '>')} ${safeText(pendingWriteLine(write))}`)];
}

/** The pending writes an apply resends before it plans, as the plan shows them. */
export function renderPendingWritesText(writes: readonly PendingWrite[], options: TextOptions): string {
  return `${pendingWritesLines(writes, makePainter(options.color)).join('\n')}\n`;
}

/** Spend: per gateway and token (its warnings are notices), and the headline with the total over the plan. */
export function spendTextLines(plan: Plan, paint: Paint): string[] {
  if (!plan.spend) return [];
  const out = [paint('bold', 'Spend (maximum authorised, normalised to 30 days):')];
  for (const line of spendLines(plan.spend))
    out.push(`${line.depth === 0 ? '  ' : '      '}${safeName(line.name)}: ${safeText(line.text)}`);
  const notRead = spendNotRead(plan.spend);
  if (notRead) out.push(`  ${paint('warn', '?')} ${safeText(notRead)}`);
  out.push(paint('bold', spendHeadline(plan.spend)), '');
  return out;
}

export function renderPlanText(plan: Plan, options: TextOptions): string {
  const paint = makePainter(options.color);
  const rule = paint('dim', '─'.repeat(Math.max(20, Math.min(options.width ?? 80, 100))));
  const out: string[] = [];
  if (plan.origin) out.push(`Account: ${accountLabel(plan)}   Workspace: ${safeName(plan.origin.workspace)}`, '');

  if (plan.drift.length > 0) out.push(...driftLines(plan, paint), '', rule, '');

  if (plan.pendingWrites?.length) out.push(...pendingWritesLines(plan.pendingWrites, paint), '');

  const acting = plan.steps.filter((s) => s.action !== 'no-op');
  if (plan.mode === 'refresh-only') {
    if (plan.drift.length > 0) {
      out.push('This is a refresh-only plan: cplane will not change any object to undo these changes.');
      out.push('Applying it records the live values above in state.', '');
    }
  } else if (acting.length > 0) {
    out.push('cplane will perform the following actions:', '');
    for (const step of acting) out.push(...renderStep(step, paint), '');
  }

  out.push(...unreadableLines(plan, paint), ...spendTextLines(plan, paint));
  if (plan.offboard) out.push(...offboardLines(plan.offboard, paint));

  const policies = policyHeadline(plan);
  if (policies) {
    out.push(paint('bold', policies));
    for (const f of findingLines(plan))
      out.push(
        `  ${paint(f.level === 'mandatory' ? 'remove' : 'warn', f.symbol)} ${safeText(f.text)}${f.place ? paint('dim', `  (${safeName(f.place)})`) : ''}`,
      );
    out.push('');
  }

  out.push(...noticeLines(plan.notices, paint));

  if (plan.targets.length > 0)
    out.push(paint('warn', `Only part of the configuration was planned (--target ${plan.targets.join(', ')}).`), '');
  if (plan.exclude?.length)
    out.push(
      paint(
        'warn',
        `Only part of the configuration was planned (--exclude ${plan.exclude.map(safeName).join(', ')}): the excluded addresses and what depends on them were left out.`,
      ),
      '',
    );
  out.push(paint('bold', noChangesLine(plan) ?? summaryLine(plan)));
  const refused = refusedLine(plan);
  if (refused) out.push(paint('remove', refused));
  return `${wrapText(out.join('\n'), options.width)}\n`;
}
