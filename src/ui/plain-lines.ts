/**
 * One stable line per apply event, for CI logs and `--no-input`: no colour,
 * no cursor movement, nothing that changes between runs but ids and times.
 */
import type { ApplyEvent } from '../applier/index.js';
import { safeName, safeText } from '../text/safe-text.js';
import { formatDuration, pastTense, revealCommand } from './words.js';

/** The line, with names, ids and reasons from configuration and the API escaped and every secret redacted. */
export function eventLine(event: ApplyEvent, prefix: string, scope: readonly string[] = []): string {
  return composeLine(safeEvent(event), prefix, scope);
}

/**
 * The event with what came from configuration and the API escaped before anything shows it: addresses as
 * names (never redacted), ids, operations and reasons with every secret redacted too.
 */
export function safeEvent(event: ApplyEvent): ApplyEvent {
  const clean = { ...event } as Record<string, unknown>;
  for (const field of ['address', 'after']) if (typeof clean[field] === 'string') clean[field] = safeName(clean[field]);
  for (const field of ['id', 'reason', 'operation', 'createdAt'])
    if (typeof clean[field] === 'string') clean[field] = safeText(clean[field]);
  if (Array.isArray(clean.notices)) clean.notices = clean.notices.map((n) => safeText(String(n)));
  return clean as unknown as ApplyEvent;
}

function composeLine(event: ApplyEvent, prefix: string, scope: readonly string[]): string {
  switch (event.type) {
    case 'journal-resent':
      return event.outcome === 'done'
        ? `${prefix}: ${event.address}: resent pending ${event.operation} with its saved key: done${(event.notices ?? []).map((n) => `; ${n}`).join('')}`
        : `${prefix}: ${event.address}: resent pending ${event.operation} with its saved key: failed: ${event.reason ?? 'unknown error'}`;
    case 'journal-dropped':
      return `${prefix}: ${event.address}: pending ${event.operation} from ${event.createdAt} is older than the API's 24 h idempotency window: dropped; the refresh reconciles it`;
    case 'step-started':
      return `${prefix}: ${event.address}: ${event.action} started`;
    case 'step-retry':
      return `${prefix}: ${event.address}: retry ${event.attempt} in ${formatDuration(event.delayMs)} (${event.status ? `${event.status} ` : ''}${event.reason})`;
    case 'step-done': {
      const token = event.sealed.length > 0 ? `; new token kept sealed in state: ${revealCommand(event.address, scope)}` : '';
      const notices = (event.notices ?? []).map((n) => `; ${n}`).join('');
      return `${prefix}: ${event.address}: ${pastTense(event.action)}${event.id ? ` id=${event.id}` : ''}  (${formatDuration(event.durationMs)})${token}${notices}`;
    }
    case 'step-failed':
      return `${prefix}: ${event.address}: ${event.action} failed: ${event.reason}`;
    case 'step-skipped':
      return event.cause === 'interrupted'
        ? `${prefix}: ${event.address}: ${event.action} not started (interrupted)`
        : `${prefix}: ${event.address}: ${event.action} skipped: depends on ${event.after ?? 'a step'}, which failed`;
    case 'rate-limited':
      return `${prefix}: the API's rate limit: requests held back to about ${event.ratePerSecond} a second`;
    case 'interrupted':
      return `${prefix}: interrupted: no new writes start; waiting for the writes in flight to finish (Ctrl-C again to quit at once)`;
  }
}
