import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { withDatabase } from '../../helpers/postgres.js';

const database = withDatabase();

describe('the PostgreSQL test harness', () => {
  it('gives each test file its own database on a real server', async () => {
    const client = new pg.Client({ connectionString: database().url });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string; version: string }>('SELECT current_database() AS db, version() AS version');
      expect(rows[0]!.db).toBe(database().name);
      expect(rows[0]!.version).toMatch(/^PostgreSQL \d+/);
    } finally {
      await client.end();
    }
  });
});
