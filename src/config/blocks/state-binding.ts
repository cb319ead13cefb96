/**
 * Where the state's database is, and so where its password goes, is bound outside the repository, as a token is
 * bound to its address (token-binding.ts; docs/security.md, "What a pull request can and cannot make cplane do").
 * The runner binds it with `--state` / `CPLANE_STATE` (the URL with its password), else libpq's `PGHOST` (with
 * `PGPORT`, `PGDATABASE`, and `PGPASSWORD` or `~/.pgpass`). The configuration's `state: { url }` may only name that
 * same database, without a password and without `${env.NAME}`: otherwise a pull request could send `PGPASSWORD`, or
 * any variable of the runner read into the URL, to a server of its own.
 */
import { passwordsInUrl } from '../../text/url-secrets.js';
import { diagnosticAt, type DiagnosticSink } from '../diagnostics.js';
import { registerUrlPasswords } from '../../text/url-secrets.js';
import { positionIn, type SourceFile } from '../files/source-file.js';

/** The state the runner bound, and where the binding comes from; `database` undefined when none is bound. */
export interface BoundState {
  database?: DatabaseAddress;
  /** The binding names a state file, not a database. */
  file?: boolean;
  from: string;
}

/** A database as a connection reaches it: host, port and database name (no user, no password). */
export interface DatabaseAddress {
  host: string;
  port: string;
  /** Undefined when the binding does not name one (PGHOST without PGDATABASE). */
  database?: string;
}

const isPostgresUrl = (text: string): boolean => /^postgres(ql)?:\/\//i.test(text);

/**
 * The database a `postgres://` URL connects to, as node-postgres reads it (a `host`, `port` or `database`/`dbname`
 * parameter wins over the authority and the path); undefined for a URL that does not parse.
 */
export function databaseOf(url: string): DatabaseAddress | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const param = (...names: string[]) => names.map((n) => parsed.searchParams.get(n) ?? undefined).find((v) => v !== undefined);
  const path = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const database = param('dbname', 'database') ?? (path === '' ? undefined : path);
  return {
    host: (param('host') ?? decodeURIComponent(parsed.hostname)).replace(/^\[(.*)\]$/, '$1').toLowerCase(),
    port: param('port') ?? (parsed.port || '5432'),
    ...(database !== undefined ? { database } : {}),
  };
}

/** The state the runner bound: `--state` (the command's flag), else `CPLANE_STATE`, else libpq's `PGHOST`. */
export function boundState(env: NodeJS.ProcessEnv, stateFlag: string | undefined): BoundState {
  const given = stateFlag
    ? { text: stateFlag, from: '--state' }
    : env.CPLANE_STATE
      ? { text: env.CPLANE_STATE, from: 'CPLANE_STATE' }
      : undefined;
  if (given) {
    const database = isPostgresUrl(given.text) ? databaseOf(given.text) : undefined;
    return { ...(database ? { database } : {}), ...(isPostgresUrl(given.text) ? {} : { file: true }), from: given.from };
  }
  if (env.PGHOST) {
    const database = {
      host: env.PGHOST.toLowerCase(),
      port: env.PGPORT || '5432',
      ...(env.PGDATABASE ? { database: env.PGDATABASE } : {}),
    };
    return { database, from: 'PGHOST' };
  }
  return { from: 'CPLANE_STATE, --state or PGHOST' };
}

/** Whether the database a configuration names is the bound one (a database name the binding leaves out matches any). */
export function sameDatabase(named: DatabaseAddress, bound: DatabaseAddress): boolean {
  return named.host === bound.host && named.port === bound.port && (bound.database === undefined || named.database === bound.database);
}

/** A database as it may be printed: host, port and name. */
const shownDatabase = (d: DatabaseAddress): string => `${d.host.includes(':') ? `[${d.host}]` : d.host}:${d.port}/${d.database ?? ''}`;

const HINT =
  'Bind the state outside the repository: the whole URL with its password in CPLANE_STATE (a CI secret) or --state, or PGHOST with PGPASSWORD. The configuration may name the same database without a password, or leave `state:` out (docs/state.md).';

/**
 * `state: { url }` of one file, checked against the bound state: no `${var.NAME}` (a variable's value is saved in
 * plan files), no `${env.NAME}` and no password (the repository would choose where a secret goes), and a
 * `postgres://` URL only for the database the runner bound. Reads the text as written, before interpolation.
 */
export function checkStateUrl(file: SourceFile, bound: BoundState, sink: DiagnosticSink): void {
  const state = (file.value as Record<string, unknown>).state;
  const url = state !== null && typeof state === 'object' ? (state as Record<string, unknown>).url : undefined;
  if (typeof url !== 'string') return;
  const position = positionIn(file, state, 'url');
  const at = (text: string) => {
    const start = position ? file.text.indexOf(text, position.value[0]) : -1;
    return start !== -1 ? start : (position?.value[0] ?? 0);
  };
  const before = sink.length;
  for (const match of url.matchAll(/(?<!\$)\$\{\s*(var|env)\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g)) {
    const offset = at(match[0]);
    const variable = match[1] === 'var';
    sink.push(
      diagnosticAt(file, offset, {
        code: variable ? 'secret_var_in_state_url' : 'state_url_env',
        summary: variable
          ? `state.url may not use a variable (${match[0]}): variable values are saved in plan files and shown by plan --json, so a password given this way would leak`
          : `state.url may not read the environment (${match[0]}): the repository would choose where that variable is sent`,
        detail: HINT,
        end: offset + match[0].length,
      }),
    );
  }
  if (sink.length > before) return;
  if (passwordsInUrl(url).some((p) => p !== '')) {
    registerUrlPasswords(url);
    sink.push(
      diagnosticAt(file, at(url), {
        code: 'state_url_password',
        summary:
          'state.url holds a password: a password in the repository is readable by everyone who can read it, and goes wherever the URL says',
        detail: `Remove it (and change it: it was committed). ${HINT}`,
      }),
    );
    return;
  }
  checkBoundDatabase(file, url, at(url), bound, sink);
}

/** The passwords written in the files' `state: { url }`: committed or not, the snippet under a diagnostic does not show them. */
export function statePasswords(files: readonly SourceFile[]): string[] {
  return files.flatMap((file) => {
    const state = (file.value as Record<string, unknown>).state;
    const url = state !== null && typeof state === 'object' ? (state as Record<string, unknown>).url : undefined;
    return typeof url === 'string' ? passwordsInUrl(url).filter((p) => p !== '') : [];
  });
}

/** A `postgres://` state URL names the bound database, or it is refused before any connection. */
function checkBoundDatabase(file: SourceFile, url: string, offset: number, bound: BoundState, sink: DiagnosticSink): void {
  if (!isPostgresUrl(url)) return;
  const named = databaseOf(url);
  if (named && bound.database && sameDatabase(named, bound.database)) return;
  const what = named ? `the database ${shownDatabase(named)}` : 'a database';
  sink.push(
    diagnosticAt(file, offset, {
      code: 'state_not_bound',
      summary: bound.database
        ? `state.url names ${what}, but the state is bound to ${shownDatabase(bound.database)} (${bound.from}): cplane connects only to the bound database`
        : bound.file
          ? `state.url names ${what}, but the state is bound to a file (${bound.from}): cplane connects only to a database the runner names`
          : `state.url names ${what}, but no state is bound outside the repository (${bound.from}): cplane sends a database password only to a database the runner names`,
      detail: HINT,
    }),
  );
}
