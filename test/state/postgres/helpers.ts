/**
 * Arrangements for the PostgreSQL state tests: a state URL in its own schema
 * of the file's database, stores opened on it, and a dump of every row of
 * every table in that schema (what a `pg_dump --data-only` would show).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openState } from '../../../src/state/index.js';
import type { OpenStateOptions, StateStore } from '../../../src/state/index.js';
import type { Sandbox } from '../helpers.js';

export function schemaUrl(databaseUrl: string, schema = `s_${randomBytes(4).toString('hex')}`): { url: string; schema: string } {
  const url = new URL(databaseUrl);
  url.searchParams.set('schema', schema);
  return { url: url.toString(), schema };
}

export function storeOptions(box: Sandbox, url: string, key: string, extra: Partial<OpenStateOptions> = {}): OpenStateOptions {
  return {
    configDir: box.configDir,
    account: 'acc_1',
    statePath: url,
    env: { ...box.env, CPLANE_STATE_KEY: key },
    command: 'cplane apply',
    lock: true,
    ...extra,
  };
}

export function open(box: Sandbox, url: string, key: string, extra: Partial<OpenStateOptions> = {}): Promise<StateStore> {
  return openState(storeOptions(box, url, key, extra));
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const parsed = new URL(url);
  parsed.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: parsed.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Every row of every table in `schema`, as JSON text, one line per row. */
export async function dumpSchema(url: string, schema: string): Promise<string> {
  return withClient(url, async (client) => {
    const tables = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    const lines: string[] = [];
    for (const { table_name } of tables.rows) {
      const { rows } = await client.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${schema}.${table_name} t`);
      lines.push(`-- ${table_name}`, ...rows.map((r) => r.row));
    }
    return lines.join('\n');
  });
}
