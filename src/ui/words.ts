/**
 * The words the apply output uses for plan actions and durations, shared by
 * the Ink views, the plain lines and the summary so they never disagree.
 */
import type { Action } from '../planner/types.js';

const past: Record<Action, string> = {
  create: 'created',
  update: 'updated',
  replace: 'replaced',
  rotate: 'rotated',
  import: 'imported',
  archive: 'archived',
  delete: 'deleted',
  revoke: 'revoked',
  'no-op': 'unchanged',
};

const progressive: Record<Action, string> = {
  create: 'creating',
  update: 'updating',
  replace: 'replacing',
  rotate: 'rotating',
  import: 'importing',
  archive: 'archiving',
  delete: 'deleting',
  revoke: 'revoking',
  'no-op': 'checking',
};

export function pastTense(action: Action): string {
  return past[action];
}

export function progressiveTense(action: Action): string {
  return progressive[action];
}

/** `0.4s`, `12.3s`, `2m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** The command that reveals a token the apply sealed into state. */
export function revealCommand(address: string): string {
  return `cplane output ${address} --reveal`;
}
