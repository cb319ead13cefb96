/**
 * Words and symbols shared by every plan renderer: the symbol and verb of an
 * action, how a value is shown, and the summary line. Rendering only shows
 * what the plan says; nothing here computes a change.
 */
import { safeText } from '../text/safe-text.js';
import { diffLines } from 'diff';
import { isIncomplete, unreadableNames, warningCount, type FieldChange, type PendingWrite, type Plan } from '../plan-model/index.js';

export type { Tone } from '../plan-model/index.js';

/** A value as it reads in the plan: JSON for data, `(sensitive)` for write-only values. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(not set)';
  return JSON.stringify(value);
}

const isMultiline = (value: unknown): value is string => typeof value === 'string' && value.includes('\n');

/**
 * One field change as lines (without indentation or symbol colour): `path = after`, `path = before -> after`,
 * or, for multi-line strings, a line diff made with `diff`.
 */
export function changeLines(change: FieldChange, creating: boolean): { symbol: string; text: string }[] {
  const suffix = `${change.note ? `  (${change.note})` : ''}${change.forcesReplace ? '  # forces replacement' : ''}`;
  if (change.sensitive) return [{ symbol: creating ? '+' : '~', text: `${change.path} = (sensitive)${suffix}` }];
  // A value that is not changed but explains the step (an expired token's expiresAt).
  if (change.note && !('after' in change)) return [{ symbol: '~', text: `${change.path} = ${showValue(change.before)}${suffix}` }];
  if (!('before' in change)) return [{ symbol: '+', text: `${change.path} = ${showValue(change.after)}${suffix}` }];
  if (!('after' in change)) return [{ symbol: '-', text: `${change.path} = ${showValue(change.before)}${suffix}` }];
  if (isMultiline(change.before) || isMultiline(change.after)) {
    const lines = [{ symbol: '~', text: `${change.path} = <<-${suffix}` }];
    for (const part of diffLines(String(change.before ?? ''), String(change.after ?? ''))) {
      const symbol = part.added ? '+' : part.removed ? '-' : ' ';
      for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push({ symbol, text: `    ${line}` });
    }
    return lines;
  }
  return [{ symbol: '~', text: `${change.path} = ${showValue(change.before)} -> ${showValue(change.after)}${suffix}` }];
}

export function summaryLine(plan: Plan): string {
  const { add, change, replace, remove, move, forget } = plan.summary;
  const imports = plan.summary.import > 0 ? `${plan.summary.import} to import, ` : '';
  // Moves and forgets send no write: counted after the rest, only when there are some (as Terraform's `to forget`).
  const extra = [move > 0 ? `${move} to move` : '', forget > 0 ? `${forget} to forget` : '']
    .filter(Boolean)
    .map((part) => `, ${part}`)
    .join('');
  const counts = `${imports}${add} to add, ${change} to change, ${replace} to replace, ${remove} to remove${extra}.`;
  if (!isIncomplete(plan)) return `Plan: ${counts}`;
  const names = unreadableNames(plan);
  return `Plan incomplete: ${names.length} item${names.length === 1 ? '' : 's'} could not be read (${names.join(', ')}), so nothing is known about ${names.length === 1 ? 'it' : 'them'}; for the rest: ${counts}`;
}

/** The line shown when applying the plan would change nothing; undefined when it would. */
export function noChangesLine(plan: Plan): string | undefined {
  const acting = plan.steps.some((s) => s.action !== 'no-op');
  if (plan.mode === 'refresh-only') {
    return plan.drift.length === 0 ? 'No changes. Your infrastructure still matches what cplane last applied.' : undefined;
  }
  // An incomplete plan never says "No changes": what could not be read may well have some (summaryLine).
  if (acting || isIncomplete(plan) || (plan.pendingWrites?.length ?? 0) > 0) return undefined;
  if (plan.mode === 'destroy') return 'No changes. No objects need to be destroyed.';
  // "No changes" never stands alone beside a notice: a record without a value, an address the API cannot show.
  const warnings = warningCount(plan.notices);
  if (warnings > 0) return `No changes. The plan has ${warnings} warning${warnings === 1 ? '' : 's'} (listed above).`;
  const notices = plan.notices?.length ?? 0;
  if (notices > 0)
    return `No changes. Your infrastructure matches the configuration as far as the plan shows it (${notices} notice${notices === 1 ? '' : 's'} listed above).`;
  return 'No changes. Your infrastructure matches the configuration.';
}

/** The heading of the pending writes, and one line per write: `ADDRESS: createGateway will be resent first (then created)`. */
export const PENDING_HEADING = 'Pending writes an earlier apply left unconfirmed (they will be resent first, with their saved keys):';

export function pendingWriteLine(write: PendingWrite): string {
  return `${write.address}: ${write.operation} will be resent first (then ${write.becomes}), saved ${write.savedAt}`;
}

/** `Payments (0f3c…)`, or the id alone when the name is not known. */
export function accountLabel(plan: Plan): string {
  const name = plan.origin?.accountName;
  return name ? `${safeText(name)} (${plan.account})` : plan.account;
}
