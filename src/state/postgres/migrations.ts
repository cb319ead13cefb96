/**
 * The tables cplane keeps in its schema, created and upgraded on first use by
 * an ordered list of migrations. `migrations` records which have run; a
 * transaction-scoped advisory lock makes concurrent first runs take turns, so
 * each step runs exactly once.
 *
 * One state per (account, workspace) in `states`; its resources and journal
 * entries are rows, so recording a write touches only the rows it changes.
 * `versions` keeps one row per save (serial, time, who, command) for
 * `cplane state history`; `locks` holds the details of the run holding a
 * state's advisory lock, for the "locked by …" message; `open_plans` the saved
 * plans of open pull requests (../open-plans.ts), one row per pull request;
 * `address_locks` the addresses applies hold (../address-locks.ts), one row per
 * address, with the database session that holds it (a row whose session ended is free).
 */
import type pg from 'pg';

interface Migration {
  version: number;
  description: string;
  sql: (schema: string) => string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'states, resources, journal, versions and locks',
    sql: (s) => `
      CREATE TABLE ${s}.states (
        id bigserial PRIMARY KEY,
        account text NOT NULL,
        workspace text NOT NULL,
        lineage text NOT NULL,
        format_version integer NOT NULL,
        serial bigint NOT NULL,
        header jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account, workspace)
      );
      CREATE TABLE ${s}.resources (
        state_id bigint NOT NULL REFERENCES ${s}.states (id) ON DELETE CASCADE,
        address text NOT NULL,
        data jsonb NOT NULL,
        PRIMARY KEY (state_id, address)
      );
      CREATE TABLE ${s}.journal (
        state_id bigint NOT NULL REFERENCES ${s}.states (id) ON DELETE CASCADE,
        id text NOT NULL,
        seq bigserial,
        data jsonb NOT NULL,
        PRIMARY KEY (state_id, id)
      );
      CREATE TABLE ${s}.versions (
        state_id bigint NOT NULL REFERENCES ${s}.states (id) ON DELETE CASCADE,
        serial bigint NOT NULL,
        saved_at timestamptz NOT NULL DEFAULT now(),
        who text NOT NULL,
        host text NOT NULL,
        command text NOT NULL,
        changes integer NOT NULL,
        bytes integer NOT NULL,
        PRIMARY KEY (state_id, serial)
      );
      CREATE TABLE ${s}.locks (
        account text NOT NULL,
        workspace text NOT NULL,
        lock_id text NOT NULL,
        who text NOT NULL,
        host text NOT NULL,
        pid integer NOT NULL,
        command text NOT NULL,
        since timestamptz NOT NULL,
        session_pid integer NOT NULL,
        PRIMARY KEY (account, workspace)
      );`,
  },
  {
    version: 2,
    description: 'open plans: the saved plans of open pull requests (docs/state.md)',
    sql: (s) => `
      CREATE TABLE ${s}.open_plans (
        account text NOT NULL,
        workspace text NOT NULL,
        pr integer NOT NULL,
        data jsonb NOT NULL,
        registered_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account, workspace, pr)
      );`,
  },
  {
    version: 3,
    description: 'who allowed each version: the plan digest, pull request, commit, actor and approvers (docs/state.md)',
    sql: (s) => `ALTER TABLE ${s}.versions ADD COLUMN allowance jsonb;`,
  },
  {
    version: 4,
    description: 'address locks: the addresses each running apply holds (docs/state.md)',
    sql: (s) => `
      CREATE TABLE ${s}.address_locks (
        account text NOT NULL,
        workspace text NOT NULL,
        address text NOT NULL,
        lock_id text NOT NULL,
        holder jsonb NOT NULL,
        session_pid integer NOT NULL,
        session_start timestamptz,
        PRIMARY KEY (account, workspace, address)
      );
      CREATE INDEX address_locks_by_id ON ${s}.address_locks (account, workspace, lock_id);`,
  },
];

export const SCHEMA_VERSION = migrations.at(-1)!.version;

/**
 * What a reader finds, without changing anything (a command that only reads never runs DDL): `missing` when
 * nothing was ever written in the schema, `current`, or `older` (a writer of this cplane upgrades it).
 */
export async function schemaStatus(client: pg.Client, schema: string): Promise<'missing' | 'current' | 'older'> {
  const ready = await client
    .query<{ version: number }>(`SELECT max(version)::int AS version FROM ${schema}.migrations`)
    .catch((error: { code?: string }) => {
      // 42P01 undefined_table, 3F000 invalid_schema_name: nothing was ever written here.
      if (error.code === '42P01' || error.code === '3F000') return undefined;
      throw error;
    });
  if (!ready) return 'missing';
  const version = ready.rows[0]!.version;
  if (version > SCHEMA_VERSION)
    throw new Error(`the schema ${schema} is at version ${version}, made by a newer cplane (this one knows up to ${SCHEMA_VERSION})`);
  return version === SCHEMA_VERSION ? 'current' : 'older';
}

/** Creates the schema and runs the migrations it lacks (only commands that write: they hold the lock next). `schema` is a checked identifier (see url.ts). */
export async function migrate(client: pg.Client, schema: string): Promise<void> {
  const ready = await client
    .query<{ version: number }>(`SELECT max(version)::int AS version FROM ${schema}.migrations`)
    .catch((error: { code?: string }) => {
      // 42P01 undefined_table, 3F000 invalid_schema_name: a first use.
      if (error.code === '42P01' || error.code === '3F000') return undefined;
      throw error;
    });
  if (ready && ready.rows[0]!.version === SCHEMA_VERSION) return;
  await client.query('BEGIN');
  try {
    // One key for every schema's migrations: first runs in different schemas simply take turns.
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('cplane migrations'))`);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>(`SELECT coalesce(max(version), 0)::int AS version FROM ${schema}.migrations`);
    const current = rows[0]!.version;
    if (current > SCHEMA_VERSION) {
      throw new Error(`the schema ${schema} is at version ${current}, made by a newer cplane (this one knows up to ${SCHEMA_VERSION})`);
    }
    for (const step of migrations.filter((m) => m.version > current)) {
      await client.query(step.sql(schema));
      await client.query(`INSERT INTO ${schema}.migrations (version, description) VALUES ($1, $2)`, [step.version, step.description]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
