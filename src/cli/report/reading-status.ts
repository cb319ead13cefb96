/**
 * The live status line plan and apply show on a terminal while they read the account
 * ("Reading account… 12/40 requests"): at 400 ms of latency a refresh takes seconds, and a silent
 * terminal looks stuck. It writes to stderr, redraws at most every 100 ms, and erases itself before
 * the plan is printed. Without a terminal it does nothing, so CI output is unchanged.
 */
import type { ClientEvent } from '../../api/client.js';

export interface ReadingProgress {
  /** Requests sent, retries included. */
  sent: number;
  /** Answers received. */
  answered: number;
}

export function readingStatusText(progress: ReadingProgress): string {
  return `Reading account… ${progress.answered}/${progress.sent} requests`;
}

export interface ReadingStatus {
  onClientEvent(event: ClientEvent): void;
  /** Erases the line; later events are ignored. */
  stop(): void;
}

const REDRAW_MS = 100;
const CLEAR_LINE = '\r\x1b[K';

export function readingStatus(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  options: { enabled: boolean; now?: () => number },
): ReadingStatus {
  if (!options.enabled || stream.isTTY !== true) return { onClientEvent: () => undefined, stop: () => undefined };
  const now = options.now ?? Date.now;
  const progress: ReadingProgress = { sent: 0, answered: 0 };
  let drawnAt: number | undefined;
  let stopped = false;
  return {
    onClientEvent(event) {
      if (stopped) return;
      if (event.type === 'request') progress.sent++;
      else if (event.type === 'response') progress.answered++;
      else return;
      const at = now();
      // The first answer and the last of a burst are what people see: throttle the ones in between.
      if (drawnAt !== undefined && at - drawnAt < REDRAW_MS && progress.answered < progress.sent) return;
      drawnAt = at;
      stream.write(`${CLEAR_LINE}${readingStatusText(progress)}`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (drawnAt !== undefined) stream.write(CLEAR_LINE);
    },
  };
}
