// Per-address apply locks with the state in PostgreSQL (docs/state.md, "Locks"): the stories of
// ../address-locks-stories.ts, on a real server, each in a schema of its own.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import pg from 'pg';
import { PostgresBackend } from '../../../src/state/postgres/index.js';
import { withDatabase } from '../../helpers/postgres.js';
import type { World } from '../helpers.js';
import { addressLockStories } from '../address-locks-stories.js';

const database = withDatabase();
const schemas = new WeakMap<World, string>();

function stateUrl(w: World): string {
  if (!schemas.has(w)) schemas.set(w, `locks_${randomBytes(4).toString('hex')}`);
  const url = new URL(database().url);
  url.searchParams.set('schema', schemas.get(w)!);
  return url.toString();
}

describe.concurrent('address locks of a PostgreSQL state', { timeout: 180_000 }, () => {
  addressLockStories({
    env: (w) => ({ CPLANE_STATE: stateUrl(w) }),
    backend: (w) => new PostgresBackend({ url: stateUrl(w), account: w.env.CPLANE_ACCOUNT! }),
    async deadHold(w, addresses) {
      // A row whose database session has ended: no session has this backend pid.
      const id = randomUUID();
      const holder = { id, pid: 1, host: 'ci-runner', time: new Date().toISOString(), command: 'cplane apply (killed)' };
      const admin = new pg.Client({ connectionString: database().url });
      await admin.connect();
      try {
        await admin.query(
          `INSERT INTO ${schemas.get(w)!}.address_locks (account, workspace, address, lock_id, holder, session_pid, session_start)
           SELECT $1, 'default', a, $2, $3::jsonb, 2147483647, now() FROM unnest($4::text[]) AS a`,
          [w.env.CPLANE_ACCOUNT, id, JSON.stringify(holder), addresses],
        );
      } finally {
        await admin.end();
      }
      return id;
    },
  });
});
