/** The local file backend (state.json, its change log and its lock file) passes the state backend conformance suite. */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LocalFileBackend } from '../../src/state/index.js';
import { describeStateBackend } from './backend-conformance.js';

describeStateBackend('local file', () => ({
  locate(box) {
    // The default location, under the configuration folder.
    const path = join(box.configDir, '.cplane', 'acc_1', 'state.json');
    return { statePath: undefined, backend: () => new LocalFileBackend(path), lockLeftover: () => existsSync(`${path}.lock`) };
  },
  holderHost: new RegExp(`^${hostname()}$`),
  forceUnlockCommand: (lockId) => `cplane force-unlock ${lockId}`,
}));
