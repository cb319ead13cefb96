/**
 * The state in PostgreSQL (after Terraform's `pg` backend, with rows instead
 * of one blob). Every state is a row of `states` keyed by (account,
 * workspace); its resources and journal entries are rows of their own, so
 * `append` writes only the rows a change group names, in one statement whose
 * compare-and-swap on `states.serial` refuses a racing writer: a lost update
 * is impossible even without the lock. The rows always hold the latest state,
 * so `load` returns them as the snapshot with no groups, and `compact` has
 * nothing to fold.
 *
 * The lock is a session-level advisory lock held on a connection of its own
 * for the whole run. The server releases it when that session ends, however
 * the process died, so a killed run never needs `force-unlock`. An apply's
 * address locks are rows of `address_locks` naming the data connection's
 * session: a row whose session ended is free. They are taken in one
 * transaction that also tries the state's advisory lock, so a run holding the
 * whole state and applies holding addresses exclude each other.
 */
import { userInfo, hostname } from 'node:os';
import type pg from 'pg';
import type { ChangeGroup, LoadedState, LockHandle, StateBackend, StateChange } from '../backend.js';
import { AddressesLockedError, printableLock, StateError, StateLockedError } from '../errors.js';
import { conflictsOf, holdsOfRows, type AddressLockResult } from '../address-locks.js';
import type { Allowance, LockInfo } from '../errors.js';
import type { StateFileContents, StateHeader } from '../file-format.js';
import type { JournalEntry, ResourceState } from '../types.js';
import { connect, unreachable } from './connect.js';
import { checkedOpenPlan, MAX_OPEN_PLANS, type OpenPlan, type OpenPlanRegistry } from '../open-plans.js';
import { lockKeyOf, type LockKey } from './lock-key.js';
import { migrate, schemaStatus } from './migrations.js';
import { parsePostgresUrl, type PostgresLocation } from './url.js';
import { suggestedCommand } from '../../text/escape-for.js';

export const DEFAULT_WORKSPACE = 'default';

export interface PostgresBackendOptions {
  url: string;
  account: string;
  workspace?: string;
}

/** One row of `cplane state history`. */
export interface StateVersion {
  serial: number;
  savedAt: string;
  who: string;
  host: string;
  command: string;
  /** Changes recorded by that save (resources and journal entries), and the bytes of their rows. */
  changes: number;
  bytes: number;
  /** Who allowed the apply that saved it (schema version 3); absent before, and for runs that are not a saved plan's apply. */
  allowance?: Allowance;
}

interface StateRow {
  id: string;
  lineage: string;
  format_version: number;
  serial: string;
  header: StateHeader;
}

interface LockRow {
  lock_id: string;
  who: string;
  host: string;
  pid: number;
  command: string;
  since: Date;
  session_pid: number;
}

/** A lock the database still holds for a live session, with the details its holder stored (if any). */
interface Holder {
  sessionPid: number;
  row: LockRow | undefined;
}

class PostgresLockedError extends StateLockedError {
  constructor(holder: LockInfo, location: string) {
    super(holder, false, location);
    (this as { hint?: string }).hint =
      `Wait for it to finish; a run that died releases the lock by itself. To stop a run that hangs, \`${suggestedCommand(['force-unlock', holder.id, '--force'])}\` ends its database session.`;
  }
}

/** SQL true when the session holding an address_locks row `l` still runs (its start time is hidden from other roles: then its pid decides). */
const LIVE_SESSION = `EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.session_pid AND (a.backend_start IS NULL OR l.session_start IS NULL OR a.backend_start = l.session_start))`;

function who(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** The lock row as it may be printed (escaped: anyone who can write the table writes it). */
function infoOf(row: LockRow): LockInfo {
  return printableLock({
    id: row.lock_id,
    pid: row.pid,
    host: `${row.who}@${row.host}`,
    time: row.since.toISOString(),
    command: row.command,
  });
}

/** A row's allowance, only in the shape cplane writes (anyone who can write the table writes it); else left out. */
function allowanceOf(value: unknown): Allowance | undefined {
  const a = value as Record<string, unknown> | null;
  if (!a || typeof a !== 'object' || typeof a.digest !== 'string') return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : undefined);
  const approvers = Array.isArray(a.approvers) ? a.approvers.filter((x): x is string => typeof x === 'string').slice(0, 500) : undefined;
  return {
    digest: a.digest.slice(0, 200),
    ...(Number.isSafeInteger(a.pullRequest) ? { pullRequest: a.pullRequest as number } : {}),
    ...(text(a.commit) ? { commit: text(a.commit) } : {}),
    ...(text(a.actor) ? { actor: text(a.actor) } : {}),
    ...(approvers ? { approvers: approvers.map((x) => x.slice(0, 100)) } : {}),
  };
}

/** The last change of each entry in a group wins: changes name whole values, so this is what applying them in order gives. */
function netChanges(changes: readonly StateChange[]) {
  const resources = new Map<string, ResourceState | null>();
  const journal = new Map<string, JournalEntry | null>();
  for (const change of changes) {
    if (change.type === 'resource') resources.set(change.address, change.resource);
    else if (change.type === 'resource-removed') resources.set(change.address, null);
    else if (change.type === 'journal') journal.set(change.entry.id, change.entry);
    else journal.set(change.id, null);
  }
  const upserts = <T>(map: Map<string, T | null>) =>
    [...map].filter((e): e is [string, T] => e[1] !== null).map(([k, v]) => [k, JSON.stringify(v)] as const);
  const removals = <T>(map: Map<string, T | null>) => [...map].filter(([, v]) => v === null).map(([k]) => k);
  return {
    resourceUpserts: upserts(resources),
    resourceRemovals: removals(resources),
    journalUpserts: upserts(journal),
    journalRemovals: removals(journal),
  };
}

export class PostgresBackend implements StateBackend {
  readonly location: string;
  readonly account: string;
  readonly workspace: string;
  /** What this backend sent for recorded writes: for bench/apply-postgres.mjs. */
  readonly written = { appends: 0, bytes: 0 };
  private readonly target: PostgresLocation;
  private readonly schema: string;
  private readonly key: LockKey;
  /** Serializes changes to this state's address locks (a transaction-scoped advisory lock). */
  private readonly addressKey: LockKey;
  /** The address locks this run holds, on the data connection's session. */
  private addressHandle: LockHandle | undefined;
  private data: pg.Client | undefined;
  private lockSession: { client: pg.Client; handle: LockHandle; lost: boolean } | undefined;
  private stateId: string | undefined;
  /** The schema holds this cplane's tables (checked or migrated on this connection). */
  private schemaReady = false;
  /** Why there is no state here, when the reason is more than "no row" (see `absence`). */
  private absent: string | undefined;

  constructor(options: PostgresBackendOptions) {
    this.target = parsePostgresUrl(options.url);
    // Quoted, so a schema named like a keyword works too (url.ts allows only [a-z0-9_], so no quote can be inside).
    this.schema = `"${this.target.schema}"`;
    this.account = options.account;
    this.workspace = options.workspace ?? DEFAULT_WORKSPACE;
    this.key = lockKeyOf(this.target.schema, this.account, this.workspace);
    this.addressKey = lockKeyOf(this.target.schema, this.account, `${this.workspace}\0address-locks`);
    this.location = `${this.target.masked} (account ${this.account}, workspace ${this.workspace})`;
  }

  async load(): Promise<LoadedState | undefined> {
    const db = await this.db();
    return this.readState(db).catch((error: unknown) => {
      throw this.failure(error);
    });
  }

  private async readState(db: pg.Client): Promise<LoadedState | undefined> {
    if (!(await this.readable(db))) return undefined;
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const state = await this.stateRow(db);
      if (!state) return undefined;
      const resources = await db.query<{ address: string; data: ResourceState }>(
        `SELECT address, data FROM ${this.schema}.resources WHERE state_id = $1 ORDER BY address`,
        [state.id],
      );
      const journal = await db.query<{ data: JournalEntry }>(`SELECT data FROM ${this.schema}.journal WHERE state_id = $1 ORDER BY seq`, [
        state.id,
      ]);
      this.stateId = state.id;
      const snapshot: StateFileContents = {
        version: state.format_version as StateFileContents['version'],
        header: state.header,
        account: this.account,
        lineage: state.lineage,
        serial: Number(state.serial),
        resources: Object.fromEntries(resources.rows.map((row) => [row.address, row.data])),
        journal: journal.rows.map((row) => row.data),
      };
      return { snapshot, groups: [] };
    } finally {
      await db.query('COMMIT').catch(() => undefined);
    }
  }

  async append(group: ChangeGroup): Promise<void> {
    const session = this.requireLock();
    const db = await this.db();
    if (this.stateId === undefined) throw this.changed(`there is no state to append serial ${group.serial} to`);
    const net = netChanges(group.changes);
    const s = this.schema;
    // One statement, so one round trip and one atomic step: every part reads the compare-and-swap's result,
    // and when the serial moved on (another writer) `cas` is empty and nothing is written.
    const params = [
      this.stateId,
      group.serial,
      net.resourceUpserts.map(([address]) => address),
      net.resourceUpserts.map(([, json]) => json),
      net.resourceRemovals,
      net.journalUpserts.map(([id]) => id),
      net.journalUpserts.map(([, json]) => json),
      net.journalRemovals,
      session.handle.info.host,
      session.handle.info.command,
      group.changes.length,
      session.handle.info.allowance ? JSON.stringify(session.handle.info.allowance) : null,
    ];
    const bytes =
      [...net.resourceUpserts, ...net.journalUpserts].reduce((sum, [k, json]) => sum + Buffer.byteLength(k) + Buffer.byteLength(json), 0) +
      [...net.resourceRemovals, ...net.journalRemovals].reduce((sum, k) => sum + Buffer.byteLength(k), 0);
    const result = await db
      .query<{ ok: number }>(
        `WITH cas AS (
         UPDATE ${s}.states SET serial = $2, updated_at = now() WHERE id = $1 AND serial = $2 - 1 RETURNING id
       ), resource_upserts AS (
         INSERT INTO ${s}.resources (state_id, address, data)
         SELECT cas.id, u.address, u.data::jsonb FROM cas, unnest($3::text[], $4::text[]) AS u(address, data)
         ON CONFLICT (state_id, address) DO UPDATE SET data = excluded.data
       ), resource_removals AS (
         DELETE FROM ${s}.resources r USING cas WHERE r.state_id = cas.id AND r.address = ANY($5::text[])
       ), journal_upserts AS (
         INSERT INTO ${s}.journal (state_id, id, data)
         SELECT cas.id, u.id, u.data::jsonb FROM cas, unnest($6::text[], $7::text[]) AS u(id, data)
         ON CONFLICT (state_id, id) DO UPDATE SET data = excluded.data
       ), journal_removals AS (
         DELETE FROM ${s}.journal j USING cas WHERE j.state_id = cas.id AND j.id = ANY($8::text[])
       ), version AS (
         INSERT INTO ${s}.versions (state_id, serial, who, host, command, changes, bytes, allowance)
         SELECT cas.id, $2, split_part($9, '@', 1), substr($9, length(split_part($9, '@', 1)) + 2), $10, $11, ${bytes}, $12::jsonb FROM cas
       )
       SELECT count(*)::int AS ok FROM cas`,
        params,
      )
      .catch((error: unknown) => {
        throw this.failure(error);
      });
    if (result.rows[0]!.ok !== 1) throw this.changed(`serial ${group.serial - 1} is no longer the latest`);
    this.written.appends += 1;
    this.written.bytes += bytes;
  }

  async compact(snapshot: StateFileContents): Promise<void> {
    this.requireLock();
    const db = await this.db();
    const state = await this.stateRow(db);
    if (!state) {
      await this.create(db, snapshot, 'create');
      return;
    }
    // The rows already hold every appended group: there is nothing to fold, only the bounds to check.
    if (snapshot.lineage !== state.lineage || snapshot.serial > Number(state.serial)) {
      throw this.changed(
        `it holds serial ${state.serial} of lineage ${state.lineage}, and cplane tried to compact serial ${snapshot.serial} of ${snapshot.lineage}`,
      );
    }
  }

  /**
   * Replaces the whole state (for `state push` and `state migrate`), if its serial is still `expectedSerial`
   * (undefined: there must be no state yet). The new contents keep their own serial.
   */
  async replace(snapshot: StateFileContents, expectedSerial: number | undefined, command: string): Promise<void> {
    this.requireLock();
    const db = await this.db();
    await db.query('BEGIN');
    try {
      const state = await this.stateRow(db, true);
      if (expectedSerial === undefined) {
        if (state) throw this.changed('a state was created meanwhile');
        await this.create(db, snapshot, command);
      } else {
        if (!state || Number(state.serial) !== expectedSerial) throw this.changed(`serial ${expectedSerial} is no longer the latest`);
        const s = this.schema;
        await db.query(
          `UPDATE ${s}.states SET lineage = $2, serial = $3, header = $4, format_version = $5, updated_at = now() WHERE id = $1`,
          [state.id, snapshot.lineage, snapshot.serial, JSON.stringify(snapshot.header), snapshot.version],
        );
        await db.query(`DELETE FROM ${s}.resources WHERE state_id = $1`, [state.id]);
        await db.query(`DELETE FROM ${s}.journal WHERE state_id = $1`, [state.id]);
        await this.insertRows(db, state.id, snapshot, command);
      }
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw this.failure(error);
    }
  }

  async lock(info: LockInfo): Promise<LockHandle> {
    // Only a writer creates or upgrades cplane's tables: every write happens under this lock.
    await this.migrated();
    const client = await connect(this.target, 'lock');
    try {
      const { rows } = await client.query<{ ok: boolean; pid: number }>(
        'SELECT pg_try_advisory_lock($1::bigint) AS ok, pg_backend_pid() AS pid',
        [this.key.key],
      );
      if (!rows[0]!.ok) throw new PostgresLockedError(await this.describeHolder(), this.location);
      // A run that holds the whole state must not start while an apply holds some of its addresses.
      const held = await client.query<{ holder: unknown; address: string }>(
        `SELECT holder, address FROM ${this.schema}.address_locks l WHERE account = $1 AND workspace = $2 AND ${LIVE_SESSION} ORDER BY address`,
        [this.account, this.workspace],
      );
      if (held.rows.length > 0) throw new AddressesLockedError(holdsOfRows(held.rows), this.location);
      const stored: LockInfo = { ...info, host: `${who()}@${info.host}` };
      await client.query(
        `INSERT INTO ${this.schema}.locks (account, workspace, lock_id, who, host, pid, command, since, session_pid)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (account, workspace) DO UPDATE SET lock_id = $3, who = $4, host = $5, pid = $6, command = $7, since = $8, session_pid = $9`,
        [this.account, this.workspace, info.id, who(), info.host, info.pid, info.command, info.time, rows[0]!.pid],
      );
      const handle = { id: info.id, info: stored };
      const session = { client, handle, lost: false };
      // Losing this connection loses the lock: later appends must stop (their compare-and-swap would still protect the state).
      const lose = () => void (session.lost = true);
      client.on('error', lose);
      client.on('end', lose);
      this.lockSession = session;
      return handle;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw this.failure(error);
    }
  }

  async lockAddresses(holder: LockInfo, addresses: readonly string[]): Promise<LockHandle & AddressLockResult> {
    const db = await this.migrated();
    const stored: LockInfo = { ...holder, host: `${who()}@${holder.host}` };
    const key = [this.account, this.workspace];
    await db.query('BEGIN');
    try {
      await db.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.addressKey.key]);
      const { rows } = await db.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS ok', [this.key.key]);
      if (!rows[0]!.ok) {
        await db.query('ROLLBACK');
        throw new PostgresLockedError(await this.describeHolder(), this.location);
      }
      const gone = await db.query<{ holder: unknown; address: string }>(
        `DELETE FROM ${this.schema}.address_locks l WHERE account = $1 AND workspace = $2 AND NOT ${LIVE_SESSION} RETURNING holder, address`,
        key,
      );
      const held = await db.query<{ holder: unknown; address: string }>(
        `SELECT holder, address FROM ${this.schema}.address_locks WHERE account = $1 AND workspace = $2 AND address = ANY($3::text[]) AND lock_id <> $4 ORDER BY address`,
        [...key, addresses, holder.id],
      );
      if (held.rows.length > 0) throw new AddressesLockedError(holdsOfRows(held.rows), this.location);
      await db.query(
        `INSERT INTO ${this.schema}.address_locks (account, workspace, address, lock_id, holder, session_pid, session_start)
         SELECT $1, $2, a, $3, $4::jsonb, pg_backend_pid(), (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())
         FROM unnest($5::text[]) AS a ON CONFLICT (account, workspace, address) DO NOTHING`,
        [...key, holder.id, JSON.stringify(stored), [...new Set(addresses)]],
      );
      await db.query('COMMIT');
      this.addressHandle = { id: holder.id, info: stored };
      return { ...this.addressHandle, takenOver: conflictsOf(holdsOfRows(gone.rows), addresses, holder.id) };
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw this.failure(error);
    }
  }

  async unlockAddresses(handle: LockHandle): Promise<void> {
    if (this.addressHandle?.id !== handle.id) return;
    this.addressHandle = undefined;
    await this.data
      ?.query(`DELETE FROM ${this.schema}.address_locks WHERE account = $1 AND workspace = $2 AND lock_id = $3`, [
        this.account,
        this.workspace,
        handle.id,
      ])
      .catch(() => undefined);
  }

  /** Clears the address locks with id `id`, if there are any: ending their session first when it runs and `terminate` is set. */
  private async forceUnlockAddresses(db: pg.Client, id: string, terminate: boolean): Promise<LockInfo | undefined> {
    const { rows } = await db.query<{ holder: unknown; address: string; session_pid: number; live: boolean }>(
      `SELECT holder, address, session_pid, ${LIVE_SESSION} AS live FROM ${this.schema}.address_locks l WHERE account = $1 AND workspace = $2 AND lock_id = $3`,
      [this.account, this.workspace, id],
    );
    if (rows.length === 0) return undefined;
    const holder = printableLock(holdsOfRows(rows)[0]!.holder);
    if (rows[0]!.live) {
      if (!terminate) {
        throw new StateError(
          'STATE_LOCKED',
          `The address locks ${holder.id} of ${this.location} (${rows.length} address(es)) are held by a live database session (backend pid ${rows[0]!.session_pid}) of ${holder.host}, running \`${holder.command}\` since ${holder.time}.`,
          'A run that died releases its locks by itself. If this one hangs, add --force to end its session (pg_terminate_backend); its unfinished writes stay in the journal for the next apply.',
        );
      }
      await db.query('SELECT pg_terminate_backend($1)', [rows[0]!.session_pid]);
    }
    await db.query(`DELETE FROM ${this.schema}.address_locks WHERE account = $1 AND workspace = $2 AND lock_id = $3`, [
      this.account,
      this.workspace,
      id,
    ]);
    return holder;
  }

  async unlock(handle: LockHandle): Promise<void> {
    const session = this.lockSession;
    if (!session || session.handle.id !== handle.id) return;
    this.lockSession = undefined;
    if (!session.lost) {
      await session.client
        .query(`DELETE FROM ${this.schema}.locks WHERE account = $1 AND workspace = $2 AND lock_id = $3`, [
          this.account,
          this.workspace,
          handle.id,
        ])
        .catch(() => undefined);
      await session.client.query('SELECT pg_advisory_unlock($1::bigint)', [this.key.key]).catch(() => undefined);
    }
    await session.client.end().catch(() => undefined);
  }

  forceUnlock(id: string): Promise<LockInfo> {
    return this.forceUnlockWith(id, { terminate: false });
  }

  /**
   * Clears the lock with id `id`. A lock whose session has ended needs no clearing (only its stale details are
   * removed); a live session is ended with pg_terminate_backend only when `terminate` is set.
   */
  async forceUnlockWith(id: string, options: { terminate: boolean }): Promise<LockInfo> {
    const db = await this.db();
    if (!(await this.readable(db)))
      throw new StateError(
        'STATE_NOT_LOCKED',
        `The state ${this.location} is not locked: ${this.absent ?? 'there is no state'}.`,
        'There is nothing to unlock.',
      );
    const addresses = await this.forceUnlockAddresses(db, id, options.terminate).catch((error: unknown) => {
      throw this.failure(error);
    });
    if (addresses) return addresses;
    const holder = await this.holder(db);
    const row = holder?.row ?? (await this.lockRow(db));
    if (!holder && !row)
      throw new StateError('STATE_NOT_LOCKED', `The state ${this.location} is not locked.`, 'There is nothing to unlock.');
    if (!row || row.lock_id !== id) {
      const current = row
        ? `lock id ${infoOf(row).id} (${infoOf(row).host}, \`${infoOf(row).command}\`)`
        : `a session (backend pid ${holder!.sessionPid}) that stored no details`;
      throw new StateError(
        'STATE_LOCK_ID_MISMATCH',
        `The state ${this.location} is locked by ${current}, not ${id}; nothing was changed.`,
        'Check the lock id in the error that reported the lock.',
      );
    }
    if (holder) {
      if (!options.terminate) {
        throw new StateError(
          'STATE_LOCKED',
          `The lock ${id} of ${this.location} is held by a live database session (backend pid ${holder.sessionPid}) of ${infoOf(row).host}, running \`${infoOf(row).command}\` since ${row.since.toISOString()}.`,
          'A run that died releases its lock by itself. If this one hangs, add --force to end its session (pg_terminate_backend); its unfinished writes stay in the journal for the next apply.',
        );
      }
      await db.query('SELECT pg_terminate_backend($1)', [holder.sessionPid]).catch((error: unknown) => {
        throw this.failure(error);
      });
      for (let attempt = 0; attempt < 100 && (await this.holder(db)); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await db.query(`DELETE FROM ${this.schema}.locks WHERE account = $1 AND workspace = $2 AND lock_id = $3`, [
      this.account,
      this.workspace,
      id,
    ]);
    return infoOf(row);
  }

  /** Why `load` found no state, when it is more than "no row for this account and workspace". */
  absence(): string | undefined {
    return this.absent;
  }

  /** Versions of this state, newest first. */
  async history(limit: number): Promise<StateVersion[]> {
    const db = await this.db();
    if (!(await this.readable(db))) return [];
    const state = await this.stateRow(db).catch((error: unknown) => {
      throw this.failure(error);
    });
    if (!state) return [];
    const { rows } = await db.query<{
      serial: string;
      saved_at: Date;
      who: string;
      host: string;
      command: string;
      changes: number;
      bytes: number;
      allowance: unknown;
    }>(
      `SELECT serial, saved_at, who, host, command, changes, bytes, allowance FROM ${this.schema}.versions WHERE state_id = $1 ORDER BY serial DESC LIMIT $2`,
      [state.id, limit],
    );
    return rows.map((r) => {
      const allowance = allowanceOf(r.allowance);
      return {
        serial: Number(r.serial),
        savedAt: r.saved_at.toISOString(),
        who: r.who,
        host: r.host,
        command: r.command,
        changes: r.changes,
        bytes: r.bytes,
        ...(allowance ? { allowance } : {}),
      };
    });
  }

  /**
   * The open plans of this account and workspace, one row per pull request. Registering is a write (it creates
   * or upgrades the tables), but it never takes the state's lock: planning never locks.
   */
  openPlans(): OpenPlanRegistry {
    const s = this.schema;
    const key = [this.account, this.workspace];
    const run = async <T>(work: (db: pg.Client) => Promise<T>): Promise<T> =>
      work(await this.migrated()).catch((error: unknown) => {
        throw this.failure(error);
      });
    return {
      list: () =>
        run(async (db) => {
          const { rows } = await db.query<{ data: unknown }>(
            `SELECT data FROM ${s}.open_plans WHERE account = $1 AND workspace = $2 ORDER BY pr LIMIT ${MAX_OPEN_PLANS}`,
            key,
          );
          return rows.map((r) => checkedOpenPlan(r.data)).filter((p): p is OpenPlan => p !== undefined);
        }),
      register: (plan) =>
        run(async (db) => {
          await db.query(
            `INSERT INTO ${s}.open_plans (account, workspace, pr, data) VALUES ($1, $2, $3, $4::jsonb)
             ON CONFLICT (account, workspace, pr) DO UPDATE SET data = excluded.data, registered_at = now()`,
            [...key, plan.pr, JSON.stringify(plan)],
          );
        }),
      forget: (pr, digest) =>
        run(async (db) => {
          const { rowCount } = await db.query(
            `DELETE FROM ${s}.open_plans WHERE account = $1 AND workspace = $2 AND pr = $3 AND ($4::text IS NULL OR data->>'digest' = $4)`,
            [...key, pr, digest ?? null],
          );
          return (rowCount ?? 0) > 0;
        }),
    };
  }

  /** Ends both connections. The lock, if still held, ends with its session. */
  async close(): Promise<void> {
    if (this.lockSession) await this.unlock(this.lockSession.handle);
    if (this.addressHandle) await this.unlockAddresses(this.addressHandle);
    const db = this.data;
    this.data = undefined;
    await db?.end().catch(() => undefined);
  }

  private async db(): Promise<pg.Client> {
    if (this.data) return this.data;
    this.data = await connect(this.target, 'data');
    return this.data;
  }

  /** The data connection, once the schema holds this cplane's tables (created or upgraded here: writers only). */
  private async migrated(): Promise<pg.Client> {
    const client = await this.db();
    if (this.schemaReady) return client;
    await migrate(client, this.schema).catch((error: unknown) => {
      throw unreachable(this.target, error);
    });
    this.schemaReady = true;
    return client;
  }

  /**
   * Whether a reader finds cplane's tables: false when nothing was ever written in the schema (then there is
   * no state). A schema an older cplane made cannot be read until a writer upgrades it.
   */
  private async readable(db: pg.Client): Promise<boolean> {
    if (this.schemaReady) return true;
    const status = await schemaStatus(db, this.schema).catch((error: unknown) => {
      throw unreachable(this.target, error);
    });
    if (status === 'missing') {
      this.absent = `the schema ${this.target.schema} holds no cplane tables: nothing was ever written there (commands that only read never create them; \`cplane apply\` or \`cplane state migrate --to\` does)`;
      return false;
    }
    if (status === 'older') {
      throw new StateError(
        'STATE_VERSION_UNKNOWN',
        `The cplane tables in ${this.location} were made by an older cplane; a command that only reads does not upgrade them.`,
        'Run a command that writes the state (`cplane apply`) with this cplane first: it upgrades the tables.',
      );
    }
    this.schemaReady = true;
    return true;
  }

  private async stateRow(db: pg.Client, forUpdate = false): Promise<StateRow | undefined> {
    const { rows } = await db.query<StateRow>(
      `SELECT id, lineage, format_version, serial, header FROM ${this.schema}.states WHERE account = $1 AND workspace = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [this.account, this.workspace],
    );
    return rows[0];
  }

  private async create(db: pg.Client, snapshot: StateFileContents, command: string): Promise<void> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO ${this.schema}.states (account, workspace, lineage, format_version, serial, header) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (account, workspace) DO NOTHING RETURNING id`,
      [this.account, this.workspace, snapshot.lineage, snapshot.version, snapshot.serial, JSON.stringify(snapshot.header)],
    );
    if (!rows[0]) throw this.changed('another run created it meanwhile');
    this.stateId = rows[0].id;
    await this.insertRows(db, rows[0].id, snapshot, command);
  }

  private async insertRows(db: pg.Client, stateId: string, snapshot: StateFileContents, command: string): Promise<void> {
    const s = this.schema;
    const resources = Object.entries(snapshot.resources).map(([address, r]) => [address, JSON.stringify(r)] as const);
    const journal = snapshot.journal.map((entry) => [entry.id, JSON.stringify(entry)] as const);
    await db.query(
      `INSERT INTO ${s}.resources (state_id, address, data) SELECT $1, a, d::jsonb FROM unnest($2::text[], $3::text[]) AS u(a, d)`,
      [stateId, resources.map(([a]) => a), resources.map(([, d]) => d)],
    );
    await db.query(
      `INSERT INTO ${s}.journal (state_id, id, data) SELECT $1, i, d::jsonb FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(i, d, n) ORDER BY n`,
      [stateId, journal.map(([i]) => i), journal.map(([, d]) => d)],
    );
    const bytes = [...resources, ...journal].reduce((sum, [k, d]) => sum + Buffer.byteLength(k) + Buffer.byteLength(d), 0);
    const holder = this.lockSession?.handle.info;
    await db.query(
      `INSERT INTO ${s}.versions (state_id, serial, who, host, command, changes, bytes) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (state_id, serial) DO UPDATE SET saved_at = now(), who = $3, host = $4, command = $5, changes = $6, bytes = $7`,
      [
        stateId,
        snapshot.serial,
        who(),
        hostname(),
        holder ? `${holder.command} (${command})` : command,
        resources.length + journal.length,
        bytes,
      ],
    );
  }

  private async lockRow(db: pg.Client): Promise<LockRow | undefined> {
    const { rows } = await db.query<LockRow>(
      `SELECT lock_id, who, host, pid, command, since, session_pid FROM ${this.schema}.locks WHERE account = $1 AND workspace = $2`,
      [this.account, this.workspace],
    );
    return rows[0];
  }

  /** The live session holding this state's advisory lock, if any, with the details it stored. */
  private async holder(db: pg.Client): Promise<Holder | undefined> {
    const { rows } = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid = $1::oid AND objid = $2::oid
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [this.key.classid, this.key.objid],
    );
    if (!rows[0]) return undefined;
    const row = await this.lockRow(db);
    return { sessionPid: rows[0].pid, row: row?.session_pid === rows[0].pid ? row : undefined };
  }

  // The winner takes the lock and then stores its details: a loser may look in between, so it looks a few times.
  private async describeHolder(): Promise<LockInfo> {
    const db = await this.db();
    let holder: Holder | undefined;
    for (let attempt = 0; attempt < 20; attempt++) {
      holder = await this.holder(db);
      if (holder?.row) return infoOf(holder.row);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const pid = holder?.sessionPid ?? 0;
    return { id: 'unknown', pid, host: 'a database session that stored no details', time: 'unknown', command: `backend pid ${pid}` };
  }

  private requireLock(): { handle: LockHandle; lost: boolean } {
    // An apply holding addresses writes without the state lock: its append is a compare-and-swap.
    if (!this.lockSession && this.addressHandle) return { handle: this.addressHandle, lost: false };
    const session = this.lockSession;
    if (!session)
      throw new StateError(
        'STATE_READ_ONLY',
        `The state ${this.location} was opened without its lock; it cannot be changed.`,
        'This is a bug in cplane: take the lock before writing.',
      );
    if (session.lost) {
      throw new StateError(
        'STATE_LOCK_LOST',
        `The connection holding the lock of ${this.location} was lost, so another run may hold it now; nothing more was written.`,
        'Run the command again: the journal lets the next apply finish what this one started.',
      );
    }
    return session;
  }

  private changed(detail: string): StateError {
    return new StateError(
      'STATE_CHANGED',
      `The state ${this.location} was changed by another writer (${detail}); nothing was written.`,
      'Run the command again: it will start from the latest state.',
    );
  }

  private failure(error: unknown): unknown {
    if (error instanceof StateError) return error;
    if (
      error instanceof Error &&
      'code' in error &&
      typeof (error as { code?: unknown }).code === 'string' &&
      /^[0-9A-Z]{5}$/.test((error as { code: string }).code)
    ) {
      // A server-side SQL error: a bug or missing privilege, shown with the masked location.
      return new StateError(
        'STATE_UNREACHABLE',
        `The PostgreSQL state at ${this.target.masked} refused a request: ${error.message}.`,
        'Check that the user may create and write tables in the schema (or ask your DBA to run cplane once with such a user).',
        { cause: error },
      );
    }
    return unreachable(this.target, error);
  }
}
