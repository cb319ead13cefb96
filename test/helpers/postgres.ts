/**
 * A fresh database on the run's PostgreSQL server (test/helpers/postgres-global-setup.ts)
 * for the calling test file: created before its tests, dropped after them.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';

export interface TestDatabase {
  /** URL of the file's own database, with the server's password in it. */
  url: string;
  name: string;
}

/** The run's server URL, or the one reason it has none (set by the global setup when the server did not start). */
export function serverUrl(): string {
  const startError = inject('postgresStartError');
  if (startError) throw new Error(startError);
  return inject('postgresUrl');
}

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates a database for this test file; use the getter inside tests. */
export function withDatabase(): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    const name = `cplane_test_${randomBytes(6).toString('hex')}`;
    await asAdmin((client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(serverUrl());
    url.pathname = `/${name}`;
    database = { url: url.toString(), name };
  });
  afterAll(async () => {
    if (!database) return;
    const { name } = database;
    database = undefined;
    await asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });
  return () => {
    if (!database) throw new Error('withDatabase(): the database is only available inside tests and hooks');
    return database;
  };
}
