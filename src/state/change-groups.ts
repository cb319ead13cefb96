/**
 * Turning states into change groups and back: `changesBetween` lists what an
 * update changed (whole entries, never patches), `applyGroups` folds recorded
 * groups onto a snapshot. Both are plain functions of data.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ChangeGroup, StateChange } from './backend.js';
import type { StateFileContents } from './file-format.js';
import type { StateData } from './types.js';

export function changesBetween(before: StateData, after: StateData): StateChange[] {
  const changes: StateChange[] = [];
  for (const [address, resource] of Object.entries(after.resources)) {
    if (!isDeepStrictEqual(before.resources[address], resource)) changes.push({ type: 'resource', address, resource });
  }
  for (const address of Object.keys(before.resources)) {
    if (!(address in after.resources)) changes.push({ type: 'resource-removed', address });
  }
  const beforeJournal = new Map(before.journal.map((entry) => [entry.id, entry]));
  const afterIds = new Set(after.journal.map((entry) => entry.id));
  for (const entry of after.journal) {
    if (!isDeepStrictEqual(beforeJournal.get(entry.id), entry)) changes.push({ type: 'journal', entry });
  }
  for (const id of beforeJournal.keys()) if (!afterIds.has(id)) changes.push({ type: 'journal-removed', id });
  return changes;
}

export function applyChanges<T extends StateData>(state: T, changes: readonly StateChange[]): T {
  const resources = { ...state.resources };
  const journal = [...state.journal];
  for (const change of changes) {
    switch (change.type) {
      case 'resource':
        resources[change.address] = change.resource;
        break;
      case 'resource-removed':
        delete resources[change.address];
        break;
      case 'journal': {
        const at = journal.findIndex((entry) => entry.id === change.entry.id);
        if (at >= 0) journal[at] = change.entry;
        else journal.push(change.entry);
        break;
      }
      case 'journal-removed': {
        const at = journal.findIndex((entry) => entry.id === change.id);
        if (at >= 0) journal.splice(at, 1);
        break;
      }
    }
  }
  return { ...state, resources, journal };
}

export function applyGroups(snapshot: StateFileContents, groups: readonly ChangeGroup[]): StateFileContents {
  let state = snapshot;
  for (const group of groups) state = { ...applyChanges(state, group.changes), serial: group.serial };
  return state;
}
