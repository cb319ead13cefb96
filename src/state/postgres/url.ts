/**
 * A PostgreSQL state location: a `postgres://` (or `postgresql://`) URL as
 * libpq reads it, plus `?schema=NAME` for the schema that holds cplane's
 * tables. TLS follows libpq's `sslmode` (disable, prefer, require, verify-ca,
 * verify-full) and `sslrootcert`/`sslcert`/`sslkey`. The URL may hold a
 * password, so it is shown only through `maskUrl`.
 */
import { parse as parseConnectionString, toClientConfig } from 'pg-connection-string';
import type { ClientConfig } from 'pg';
import { StateError } from '../errors.js';
import { maskUrl } from '../../text/url-secrets.js';

/** The URL with every password masked: src/text/url-secrets.ts reads it as text, so even a URL that does not parse is masked. */
export { maskUrl };

export const DEFAULT_SCHEMA = 'cplane';
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresLocation {
  /** The URL with any password replaced by `***`: the only form ever printed or stored. */
  masked: string;
  schema: string;
  /** Connection settings for node-postgres, TLS included (CA files already read). */
  client: ClientConfig;
  /** libpq's `prefer`: try TLS, and connect without it when the server offers none. */
  preferTls: boolean;
}

export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

export function parsePostgresUrl(url: string): PostgresLocation {
  const masked = maskUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StateError(
      'STATE_URL_INVALID',
      `The state URL ${masked} is not a valid URL.`,
      'Write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=verify-full (percent-encode special characters in the password).',
    );
  }
  const schema = parsed.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA_PATTERN.test(schema)) {
    throw new StateError(
      'STATE_URL_INVALID',
      `The schema ${JSON.stringify(schema)} in the state URL ${masked} is not a plain lower-case identifier.`,
      'Use letters a-z, digits and "_" (at most 63), starting with a letter or "_".',
    );
  }
  parsed.searchParams.delete('schema');
  const sslmode = parsed.searchParams.get('sslmode') ?? undefined;
  if (sslmode !== undefined && !['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'].includes(sslmode)) {
    throw new StateError(
      'STATE_URL_INVALID',
      `The state URL ${masked} has sslmode=${sslmode}, which libpq does not know.`,
      'Use one of disable, prefer, require, verify-ca, verify-full.',
    );
  }
  let client: ClientConfig;
  try {
    // libpq semantics: `require` encrypts without checking the certificate (unless sslrootcert is given), as psql does.
    client = toClientConfig(parseConnectionString(parsed.toString(), { useLibpqCompat: true })) as ClientConfig;
  } catch (error) {
    // Never include the input: it holds the password. Messages here name a file or an option, never the URL.
    throw new StateError(
      'STATE_URL_INVALID',
      `The state URL ${masked} cannot be used: ${(error as Error).message}`,
      'Check the sslrootcert/sslcert/sslkey files and the sslmode.',
      { cause: error },
    );
  }
  if (sslmode === 'allow') client.ssl = false;
  return { masked, schema, client, preferTls: sslmode === 'prefer' || sslmode === 'allow' };
}
