/**
 * What a plan step does to its address, and the one table of words and
 * symbols every output uses for it (plan text, Markdown, apply progress,
 * summaries), so they never disagree.
 */

export type Action =
  'create' | 'update' | 'replace' | 'renew' | 'rotate' | 'import' | 'move' | 'forget' | 'archive' | 'delete' | 'revoke' | 'no-op';

/** The actions that take an object off the account. */
export type RemoveAction = Extract<Action, 'archive' | 'delete' | 'revoke'>;

export function isRemoval(action: Action): action is RemoveAction {
  return action === 'archive' || action === 'delete' || action === 'revoke';
}

/** The colour family of an action in every renderer. */
export type Tone = 'add' | 'change' | 'remove' | 'replace' | 'import' | 'plain';

export interface ActionWords {
  /** In the plan's step header: `+`, `~`, `-/+`, `>` (import), `->` (move), `.` (forget), `-`. */
  symbol: string;
  /** `will be created`. */
  future: string;
  /** `creating`, while apply runs. */
  progressive: string;
  /** `created`, when apply is done. */
  past: string;
  tone: Tone;
  /** The column of the plan summary the step counts in. */
  counts: 'add' | 'change' | 'replace' | 'remove' | 'import' | 'move' | 'forget' | undefined;
}

export const actionWords: Readonly<Record<Action, ActionWords>> = {
  create: { symbol: '+', future: 'will be created', progressive: 'creating', past: 'created', tone: 'add', counts: 'add' },
  update: { symbol: '~', future: 'will be updated in place', progressive: 'updating', past: 'updated', tone: 'change', counts: 'change' },
  rotate: {
    symbol: '~',
    future: 'will have its secret rotated',
    progressive: 'rotating',
    past: 'rotated',
    tone: 'change',
    counts: 'change',
  },
  // Create before revoke, with the revocation of the old object left to a later apply (an overlap): one `~`.
  renew: { symbol: '~', future: 'will be renewed', progressive: 'renewing', past: 'renewed', tone: 'change', counts: 'change' },
  replace: { symbol: '-/+', future: 'must be replaced', progressive: 'replacing', past: 'replaced', tone: 'replace', counts: 'replace' },
  // Not `<=`: Terraform uses it for reading a data source. `.` for forget is Terraform's own.
  import: { symbol: '>', future: 'will be imported', progressive: 'importing', past: 'imported', tone: 'import', counts: 'import' },
  move: { symbol: '->', future: 'has moved to', progressive: 'moving', past: 'moved', tone: 'plain', counts: 'move' },
  forget: {
    symbol: '.',
    future: 'will no longer be managed',
    progressive: 'forgetting',
    past: 'forgotten',
    tone: 'plain',
    counts: 'forget',
  },
  archive: { symbol: '-', future: 'will be archived', progressive: 'archiving', past: 'archived', tone: 'remove', counts: 'remove' },
  delete: { symbol: '-', future: 'will be deleted', progressive: 'deleting', past: 'deleted', tone: 'remove', counts: 'remove' },
  revoke: { symbol: '-', future: 'will be revoked', progressive: 'revoking', past: 'revoked', tone: 'remove', counts: 'remove' },
  'no-op': {
    symbol: ' ',
    future: 'will be recorded in state',
    progressive: 'checking',
    past: 'unchanged',
    tone: 'plain',
    counts: undefined,
  },
};
