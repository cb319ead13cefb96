/**
 * Opening a connection to the state's PostgreSQL server: TCP keepalive on both
 * ends (so a vanished runner's session, and with it its lock, ends in about two
 * minutes instead of the operating system's two hours), libpq's `prefer`
 * fallback, and errors that name the masked URL, never the password.
 */
import type pg from 'pg';
import { StateError } from '../errors.js';
import type { PostgresLocation } from './url.js';

/** Server side: probe an idle client after 60 s, every 10 s, and give up after 6 missed probes. */
const SERVER_KEEPALIVE = ['SET tcp_keepalives_idle = 60', 'SET tcp_keepalives_interval = 10', 'SET tcp_keepalives_count = 6'];

// Loaded on first use: most runs keep their state in a file and should not pay for the driver at start-up.
let driver: Promise<typeof pg> | undefined;

async function clientFor(location: PostgresLocation, ssl: pg.ClientConfig['ssl']): Promise<pg.Client> {
  driver ??= import('pg').then((module) => module.default);
  const { Client } = await driver;
  return new Client({
    ...location.client,
    ssl,
    application_name: 'cplane',
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    connectionTimeoutMillis: 15_000,
  });
}

export async function connect(location: PostgresLocation, purpose: 'data' | 'lock'): Promise<pg.Client> {
  let client = await clientFor(location, location.client.ssl);
  try {
    try {
      await client.connect();
    } catch (error) {
      if (!location.preferTls || !/does not support SSL/i.test((error as Error).message)) throw error;
      client = await clientFor(location, false);
      await client.connect();
    }
    // A connection error after connecting is reported by the next query; without a listener it would crash the process.
    client.on('error', () => undefined);
    if (purpose === 'lock') {
      for (const statement of SERVER_KEEPALIVE) await client.query(statement);
      // A server-wide idle timeout would end the lock's idle session mid-run (PostgreSQL 14+; older servers lack it).
      await client.query('SET idle_session_timeout = 0').catch(() => undefined);
    }
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw unreachable(location, error);
  }
}

export function unreachable(location: PostgresLocation, error: unknown): StateError {
  const detail = error instanceof Error ? error.message : String(error);
  return new StateError(
    'STATE_UNREACHABLE',
    `Cannot use the PostgreSQL state at ${location.masked}: ${detail}.`,
    'Check the host, port, database, user and password in --state / CPLANE_STATE, and sslmode/sslrootcert for TLS.',
    { cause: error },
  );
}
