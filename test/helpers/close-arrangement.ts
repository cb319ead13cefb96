// Tearing down what a test arrangement opened, in order: the state (releasing its lock), the client, the emulator,
// and the temporary configuration folder.
import { rmSync } from 'node:fs';
import type { ApiClient } from '../../src/api/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { StateStore } from '../../src/state/index.js';

export async function closeArrangement(parts: {
  state: StateStore;
  client: ApiClient;
  emulator: RunningEmulator;
  dir: string;
}): Promise<void> {
  await parts.state.close();
  await parts.client.close();
  await parts.emulator.close();
  rmSync(parts.dir, { recursive: true, force: true });
}
