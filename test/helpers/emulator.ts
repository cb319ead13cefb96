// A running emulator for tests in any folder: started before the tests of the file, closed after them.
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

export { fixtures } from '../../src/emulator/index.js';

/**
 * Starts one emulator for the calling test file (port 0 on 127.0.0.1) and
 * closes it afterAll. Use the returned getter inside tests:
 *   const emulator = withEmulator(); ... emulator().url
 */
export function withEmulator(options: EmulatorOptions = {}): () => RunningEmulator {
  let running: RunningEmulator | undefined;
  beforeAll(async () => {
    running = await startEmulator(options);
  });
  afterAll(async () => {
    await running?.close();
    running = undefined;
  });
  return () => {
    if (!running) throw new Error('withEmulator(): the emulator is only available inside tests and hooks');
    return running;
  };
}
