/**
 * The one replay of a stored state: its snapshot with the change groups
 * recorded after it applied in order, each change checked against the state
 * schema first (a change log is as untrusted as the snapshot it follows).
 * The store opens a state with it; `state pull|push|migrate` and
 * `readStateFile` read one with it.
 */
import type { LoadedState, StateChange } from './backend.js';
import { applyChanges } from './draft.js';
import { StateError } from './errors.js';
import type { StateFileContents } from './types.js';
import { journalEntryProblems, resourceProblems } from './validate.js';

export interface Replayed {
  /** The state as it stands: the snapshot with every group applied, at the last group's serial. */
  contents: StateFileContents;
  /** How many changes the groups held (what a fold would take out of the log). */
  changes: number;
}

/** Replays `loaded` in place (it is fresh from the backend's `load`); `location` names the state in errors. */
export function replay(loaded: LoadedState, location: string): Replayed {
  const contents = loaded.snapshot;
  let changes = 0;
  for (const group of loaded.groups) {
    const problems = group.changes.flatMap(changeProblems);
    if (problems.length > 0) {
      throw new StateError(
        'STATE_SCHEMA',
        `The change log of ${location} holds a change that does not match schema/state.schema.json (serial ${group.serial}): ${problems.slice(0, 3).join('; ')}.`,
        'The files were left untouched. Restore state.json and its log from your own copy.',
      );
    }
    applyChanges(contents, group.changes);
    contents.serial = group.serial;
    changes += group.changes.length;
  }
  return { contents, changes };
}

/** What is wrong with one change, by the state schema; empty when nothing is. */
export function changeProblems(change: StateChange): string[] {
  switch (change.type) {
    case 'resource':
      return resourceProblems(change.address, change.resource);
    case 'journal':
      return journalEntryProblems(change.entry);
    default:
      return typeof (change as { address?: unknown; id?: unknown }).address === 'string' ||
        typeof (change as { id?: unknown }).id === 'string'
        ? []
        : [`unknown change ${JSON.stringify(change).slice(0, 80)}`];
  }
}
