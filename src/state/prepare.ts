/**
 * What `cplane init` makes ready before the first apply: the state key (found, or the key file created, as the
 * first apply would), and the state location (a file whose folder can be written, or a PostgreSQL database
 * that answers, with cplane's tables created or upgraded: what a first writer would do).
 */
import { access, constants, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StateKey } from '../crypto/state-key.js';
import { StateError } from './errors.js';
import { CURRENT_VERSION } from './migrations.js';
import { openBackend } from './open-backend.js';
import { connect } from './postgres/connect.js';
import { migrate, schemaStatus, SCHEMA_VERSION } from './postgres/migrations.js';
import { isPostgresUrl, parsePostgresUrl } from './postgres/url.js';
import { stateKeyFor } from './store.js';

export interface KeyReport {
  source: StateKey['source'];
  /** The key file, when the key is one. */
  path?: string;
  /** The key file was made now. */
  created: boolean;
}

/** The state key, as the first writer would find it: CPLANE_STATE_KEY, CPLANE_PASSPHRASE, else the key file (created when missing). */
export function prepareStateKey(configDir: string, env: NodeJS.ProcessEnv): KeyReport {
  const key = stateKeyFor(configDir, env);
  return { source: key.source, ...(key.keyFile ? { path: key.keyFile } : {}), created: key.created === true };
}

export interface LocationReport {
  backend: 'file' | 'postgres';
  /** The file path, or the URL with its password masked. */
  location: string;
  /** A state is stored there already. */
  exists: boolean;
  /** What was found or done, in a few words. */
  status: string;
}

/** The nearest folder of `path` (or above it) that exists: where the first apply creates the state's folders. */
async function nearestFolder(path: string): Promise<string> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((await stat(dir).catch(() => undefined))?.isDirectory()) return dir;
    if (dirname(dir) === dir) return dir;
  }
}

async function prepareFile(path: string): Promise<LocationReport> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new StateError(
      'STATE_PERMISSION',
      `Cannot read the state file ${path}: ${error.code ?? error.message}.`,
      "Check the file's permissions, or give another one with --state PATH.",
    );
  });
  const folder = await nearestFolder(path);
  await access(folder, constants.W_OK).catch(() => {
    throw new StateError(
      'STATE_PERMISSION',
      `The state cannot be written: the folder ${folder} is not writable.`,
      'Make it writable, or keep the state elsewhere with --state PATH (or a postgres:// URL).',
    );
  });
  if (text === undefined)
    return { backend: 'file', location: path, exists: false, status: `no state yet; the first apply creates it (${folder} is writable)` };
  const version = (() => {
    try {
      return (JSON.parse(text) as { version?: unknown }).version;
    } catch {
      return undefined;
    }
  })();
  if (typeof version !== 'number')
    throw new StateError(
      'STATE_CORRUPT',
      `The state file ${path} is not a cplane state (no format version).`,
      'Restore it from its backup (state.json.backup) or from your own copy.',
    );
  if (version > CURRENT_VERSION)
    throw new StateError(
      'STATE_VERSION_FUTURE',
      `The state file ${path} has format version ${version}, written by a newer cplane; this cplane reads up to version ${CURRENT_VERSION}.`,
      'Upgrade cplane.',
    );
  return {
    backend: 'file',
    location: path,
    exists: true,
    status:
      version === CURRENT_VERSION
        ? `format version ${version} (current)`
        : `format version ${version}: the next apply upgrades it to ${CURRENT_VERSION}`,
  };
}

async function preparePostgres(url: string): Promise<LocationReport> {
  const target = parsePostgresUrl(url);
  const client = await connect(target, 'data');
  try {
    const schema = `"${target.schema}"`;
    const before = await schemaStatus(client, schema);
    if (before !== 'current') await migrate(client, schema);
    const status =
      before === 'current'
        ? `reachable; cplane's tables in schema ${target.schema} are current (version ${SCHEMA_VERSION})`
        : `reachable; cplane's tables in schema ${target.schema} ${before === 'missing' ? 'created' : 'upgraded'} (version ${SCHEMA_VERSION})`;
    return { backend: 'postgres', location: target.masked, exists: before !== 'missing', status };
  } catch (error) {
    if (error instanceof StateError) throw error;
    throw new StateError(
      'STATE_UNREACHABLE',
      `Cannot prepare the PostgreSQL state at ${target.masked}: ${(error as Error).message}.`,
      'Check that the user may create a schema and tables in the database (or create them with a user that may).',
      { cause: error },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Checks (and for PostgreSQL, migrates) the state location a command would use. */
export async function prepareStateLocation(options: {
  configDir: string;
  account?: string;
  statePath?: string;
  workspace?: string;
}): Promise<LocationReport> {
  if (options.statePath && isPostgresUrl(options.statePath)) return preparePostgres(options.statePath);
  return prepareFile(openBackend(options).location);
}
