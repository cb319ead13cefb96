/**
 * The plan as text for a terminal, in the Terraform manner: drift first, then
 * one block per step (`+ create`, `~ update`, `-/+ replace`, `- remove`,
 * `> import`, `-> move`, `. forget`) with its field changes, reason and notes, what could not be
 * read, what is not verifiable from the API, the records left without a value, and the summary line. Colour is a parameter: the command decides it.
 */
import { actionWords, localPart, type PendingWrite, type Plan, type PlanStep, type Tone } from '../plan-model/index.js';
import { painter as makePainter, type Paint } from '../paint.js';
import { safeName, safeText } from '../text/safe-text.js';
import { wrapText } from '../text/wrap.js';
import {
  accountLabel,
  changeLines,
  clockSkewLine,
  ENDING_HEADING,
  endingLine,
  noChangesLine,
  NOT_VERIFIABLE_HEADING,
  PENDING_HEADING,
  pendingWriteLine,
  SUPERSEDED_HEADING,
  supersededLine,
  summaryLine,
  withoutValueNote,
} from './describe.js';
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

/** Write-only values a refresh-only plan did not check because their source is absent. */
export function notCheckedLines(plan: Plan, paint: Paint): string[] {
  if (!plan.notChecked?.length) return [];
  return [
    paint('warn', 'Write-only values not checked (a drift check reads no secret, and the API never returns them):'),
    ...plan.notChecked.map((n) => `  ${paint('warn', '?')} ${safeName(`${n.address} ${n.field}`)}: not checked (${safeText(n.reason)})`),
    '',
  ];
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

/** Configured addresses no operation reads back, one line each. */
export function notVerifiableLines(plan: Plan, paint: Paint): string[] {
  if (!plan.notVerifiable?.length) return [];
  return [
    paint('warn', NOT_VERIFIABLE_HEADING),
    ...plan.notVerifiable.map((n) => `  ${paint('warn', '?')} ${safeName(n.address)}: not verifiable from the API`),
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

/** Spend: per gateway and token, the warnings, and the headline with the total over the plan. */
export function spendTextLines(plan: Plan, paint: Paint): string[] {
  if (!plan.spend) return [];
  const out = [paint('bold', 'Spend (maximum authorised, normalised to 30 days):')];
  for (const line of spendLines(plan.spend)) {
    const indent = line.depth === 0 ? '  ' : '      ';
    out.push(
      line.warning
        ? `${indent}${paint('warn', '!')} ${safeName(line.name)}: ${safeText(line.text)}`
        : `${indent}${safeName(line.name)}: ${safeText(line.text)}`,
    );
  }
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
  if (plan.clockSkew) out.push(`${paint('warn', 'Warning:')} ${safeText(clockSkewLine(plan.clockSkew))}`, '');

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

  if (plan.superseded?.length)
    out.push(
      paint('bold', SUPERSEDED_HEADING),
      ...plan.superseded.map((wait) => `  ${paint('change', '~')} ${safeText(supersededLine(wait))}`),
      '',
    );
  if (plan.endingSoon?.length)
    out.push(
      paint('bold', ENDING_HEADING),
      ...plan.endingSoon.map((ending) => `  ${paint('change', '~')} ${safeText(endingLine(ending))}`),
      '',
    );

  out.push(
    ...notCheckedLines(plan, paint),
    ...unreadableLines(plan, paint),
    ...notVerifiableLines(plan, paint),
    ...spendTextLines(plan, paint),
  );
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

  const empty = withoutValueNote(plan);
  if (empty) out.push(`${paint('warn', '!')} ${safeText(empty.what)}: ${empty.addresses.map(safeName).join(', ')}`, `  ${empty.todo}`, '');

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
