/**
 * The words the apply output uses for durations and revealed tokens; the
 * words for actions come from the one table in plan-model/action.ts.
 */
import { actionWords, type Action } from '../plan-model/index.js';
import { suggestedCommand } from '../text/escape-for.js';

export function pastTense(action: Action): string {
  return actionWords[action].past;
}

export function progressiveTense(action: Action): string {
  return actionWords[action].progressive;
}

/** `0.4s`, `12.3s`, `2m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/**
 * The command that reveals a token the apply sealed into state. `scope`: the words that run it for the same
 * configuration and deployment (`infra --deployment staging`), so it runs as printed.
 */
export function revealCommand(address: string, scope: readonly string[] = []): string {
  return suggestedCommand(['output', address, ...scope, '--reveal']);
}
