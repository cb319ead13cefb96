// Per-address apply locks with the state in a file (docs/state.md, "Locks"): the stories of address-locks-stories.ts.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { LocalFileBackend } from '../../src/state/index.js';
import type { World } from './helpers.js';
import { addressLockStories } from './address-locks-stories.js';

const statePath = (w: World) => join(w.temp, 'state', 'state.json');

describe.concurrent('address locks of a file state', { timeout: 180_000 }, () => {
  addressLockStories({
    env: (w) => ({ CPLANE_STATE: statePath(w) }),
    backend: (w) => new LocalFileBackend(statePath(w)),
    async deadHold(w, addresses) {
      // A process that has ended: its pid on this host runs nothing.
      const { pid } = spawnSync(process.execPath, ['-e', '']);
      const id = randomUUID();
      const holder = { id, pid: pid!, host: hostname(), time: new Date().toISOString(), command: 'cplane apply (killed)' };
      await new LocalFileBackend(statePath(w)).lockAddresses(holder, addresses);
      return id;
    },
  });
});
