// The PostgreSQL state URL read as libpq reads it: sslmode and CA file, the schema parameter, and the one mask
// that every message uses for the password.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StateError } from '../../src/state/index.js';
import { isPostgresUrl, maskUrl, parsePostgresUrl } from '../../src/state/postgres/index.js';

function refusal(url: string): StateError {
  try {
    parsePostgresUrl(url);
  } catch (error) {
    return error as StateError;
  }
  throw new Error(`${url} was accepted`);
}

describe('maskUrl', () => {
  it('hides the password in the user part and in a password parameter, and nothing else', () => {
    expect(maskUrl('postgres://cplane:s3cr%40t@db.example.com:5432/infra?sslmode=verify-full')).toBe(
      'postgres://cplane:***@db.example.com:5432/infra?sslmode=verify-full',
    );
    expect(maskUrl('postgresql://db.example.com/infra?user=cplane&password=hunter2')).toBe(
      'postgresql://db.example.com/infra?user=cplane&password=***',
    );
    expect(maskUrl('postgres://cplane@db.example.com/infra')).toBe('postgres://cplane@db.example.com/infra');
    expect(maskUrl('postgres://u:p w@[bad')).toBe('postgres://u:***@[bad');
  });
});

describe('parsePostgresUrl', () => {
  it('takes the schema from ?schema= (default cplane) and does not pass it to the server', () => {
    expect(parsePostgresUrl('postgres://u:p@h/db').schema).toBe('cplane');
    const custom = parsePostgresUrl('postgres://u:p@h:6000/db?schema=team_a');
    expect(custom.schema).toBe('team_a');
    expect(custom.client).toMatchObject({ host: 'h', port: 6000, database: 'db', user: 'u', password: 'p' });
    expect(custom.client).not.toHaveProperty('schema');
  });

  it('follows libpq for sslmode: disable, require (no certificate check), verify-ca and verify-full with sslrootcert', () => {
    const folder = mkdtempSync(join(tmpdir(), 'cplane-ca-'));
    try {
      const ca = join(folder, 'ca.pem');
      writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n');
      expect(parsePostgresUrl('postgres://h/db').client.ssl).toBeUndefined();
      expect(parsePostgresUrl('postgres://h/db?sslmode=disable').client.ssl).toBe(false);
      expect(parsePostgresUrl('postgres://h/db?sslmode=require').client.ssl).toMatchObject({ rejectUnauthorized: false });
      const verifyCa = parsePostgresUrl(`postgres://h/db?sslmode=verify-ca&sslrootcert=${ca}`).client.ssl as {
        ca: string;
        checkServerIdentity: unknown;
      };
      expect(verifyCa.ca).toContain('BEGIN CERTIFICATE');
      expect(typeof verifyCa.checkServerIdentity).toBe('function');
      const verifyFull = parsePostgresUrl(`postgres://h/db?sslmode=verify-full&sslrootcert=${ca}`).client.ssl as Record<string, unknown>;
      expect(verifyFull.ca).toContain('BEGIN CERTIFICATE');
      expect(verifyFull.rejectUnauthorized).not.toBe(false);
      expect(verifyFull.checkServerIdentity).toBeUndefined();
      const prefer = parsePostgresUrl('postgres://h/db?sslmode=prefer');
      expect(prefer.preferTls).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses an unknown sslmode, a bad schema and a missing CA file, without showing the password', () => {
    expect(refusal('postgres://u:pw1@h/db?sslmode=sometimes').message).toBe(
      'The state URL postgres://u:***@h/db?sslmode=sometimes has sslmode=sometimes, which libpq does not know.',
    );
    expect(refusal('postgres://u:pw1@h/db?schema=Drop;Table').code).toBe('STATE_URL_INVALID');
    const missing = refusal('postgres://u:pw1@h/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem');
    expect(missing.code).toBe('STATE_URL_INVALID');
    expect(missing.message).toContain('/nonexistent/ca.pem');
    for (const error of [missing, refusal('postgres://u:pw1@h/db?sslmode=sometimes')]) expect(error.message).not.toContain('pw1');
  });

  it('recognises postgres:// and postgresql:// URLs only', () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('POSTGRESQL://h/db')).toBe(true);
    expect(isPostgresUrl('./postgres/state.json')).toBe(false);
  });
});
