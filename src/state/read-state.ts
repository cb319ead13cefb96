/** Reads a state as it stands (snapshot plus change log) without the key or the lock: for tests, benches and tools. */
import { LocalFileBackend } from './local-file-backend.js';
import { replay } from './replay.js';
import type { StateFileContents } from './types.js';

export async function readStateFile(path: string): Promise<StateFileContents | undefined> {
  const backend = new LocalFileBackend(path);
  const loaded = await backend.load();
  return loaded && replay(loaded, backend.location).contents;
}
