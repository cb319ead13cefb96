/**
 * The end-of-apply summary as lines of text: counts, then what failed (with
 * the API's reason and request id), what was skipped and why, and the new
 * gateway tokens with the command that reveals them (never their value), and
 * what the answers say a person should know (notices).
 */
import type { ApplyResult } from '../applier/index.js';
import { safeName, safeText } from '../text/safe-text.js';
import { formatDuration, revealCommand } from './words.js';

export interface SummaryLine {
  text: string;
  tone: 'ok' | 'error' | 'warning' | 'plain' | 'heading';
}

/** `scope`: the words that run a suggested command for the same configuration and deployment (words.ts). */
export function summaryLines(result: ApplyResult, verb: 'Apply' | 'Destroy', scope: readonly string[] = []): SummaryLine[] {
  const counts = `${result.done.length} done, ${result.failed.length} failed, ${result.skipped.length} skipped (${formatDuration(result.durationMs)})`;
  const lines: SummaryLine[] = [];
  if (result.interrupted) lines.push({ text: `${verb} interrupted: ${counts}.`, tone: 'warning' });
  else if (result.failed.length > 0) lines.push({ text: `${verb} finished with errors: ${counts}.`, tone: 'error' });
  else lines.push({ text: `${verb} complete: ${counts}.`, tone: 'ok' });
  if (result.failed.length > 0) {
    lines.push({ text: 'Failed:', tone: 'heading' });
    for (const f of result.failed) {
      const id = f.requestId && !f.reason.includes(f.requestId) ? ` [request id ${f.requestId}]` : '';
      lines.push({ text: `  ${safeName(f.address)} (${f.action}): ${safeText(`${f.reason}${id}`)}`, tone: 'error' });
    }
  }
  if (result.skipped.length > 0) {
    lines.push({ text: 'Skipped:', tone: 'heading' });
    for (const s of result.skipped) {
      const why = s.cause === 'interrupted' ? 'not started (interrupted)' : `depends on ${safeName(s.after ?? 'a step')}, which failed`;
      lines.push({ text: `  ${safeName(s.address)} (${s.action}): ${why}`, tone: 'plain' });
    }
  }
  const tokens = result.done.filter((d) => d.sealed.length > 0);
  if (tokens.length > 0) {
    lines.push({ text: 'New gateway tokens (the API shows them once; kept sealed in state):', tone: 'heading' });
    for (const t of tokens) lines.push({ text: `  ${safeName(t.address)}: ${safeName(revealCommand(t.address, scope))}`, tone: 'plain' });
  }
  const noticed = result.done.filter((d) => (d.notices ?? []).length > 0);
  if (noticed.length > 0) {
    lines.push({ text: 'To know:', tone: 'heading' });
    for (const d of noticed)
      for (const notice of d.notices ?? []) lines.push({ text: `  ${safeName(d.address)}: ${safeText(notice)}`, tone: 'warning' });
  }
  if (result.interrupted || result.failed.length > 0) {
    lines.push({
      text: 'State holds everything that finished. Run the command again to continue: pending writes are resent with their saved keys.',
      tone: 'plain',
    });
  }
  // Names and reasons came from configuration and the API: escaped above (reasons also redacted), names never redacted.
  return lines;
}
