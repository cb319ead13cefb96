/** Reads a state as it stands (snapshot plus change log) without the key or the lock: for tests, benches and tools. */
import { applyChanges } from './draft.js';
import { LocalFileBackend } from './local-file-backend.js';
import type { StateFileContents } from './types.js';

export async function readStateFile(path: string): Promise<StateFileContents | undefined> {
  const loaded = await new LocalFileBackend(path).load();
  if (!loaded) return undefined;
  const state = loaded.snapshot;
  for (const group of loaded.groups) {
    applyChanges(state, group.changes);
    state.serial = group.serial;
  }
  return state;
}
