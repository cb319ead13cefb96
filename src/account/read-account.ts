/**
 * The one reader of the live account. A plan (planner/stages/refresh.ts), an export (export/read-account.ts) and the
 * access report (access/access-report.ts) read through it, each with its profile (profiles.ts): which kinds, which
 * data sources, the parents whose children are read, and what a refusal does. Every kind is read through its
 * definition (`refresh` per account or per parent, `read` by id), so all three see a live object the same way.
 *
 * With as few requests as the API allows: kinds read per account (all pages, the largest page size) and the data
 * sources (each once, whichever kinds share it) run together, and with them the children of the parents the
 * profile knows before reading (a plan's parents in state), bounded by `parallelism`; children of parents found
 * in what was read (adoption, export's kept projects) follow once their list has arrived. A kind the token may
 * not list (a Service Account on a human-only list) is read by id when the API allows it and the profile has
 * recorded objects, and otherwise reported unreadable: no human-only request is ever sent with a Service Account
 * token. A kind known only from state (`observation: 'state'`) is not read: its recorded objects stand for it.
 */
import type { ApiClient } from '../api/client.js';
import { ApiError, IdentityRefusedError } from '../api/errors.js';
import { Limiter } from '../api/limiter.js';
import type { OperationName } from '../api/operations.js';
import { routes } from '../api/routes.js';
import type { ResourceKind } from '../config/types.js';
import { AbortError } from '../errors.js';
import type { Unreadable } from '../plan-model/index.js';
import { definitionOf, parentOf, type DataSource, type ReadFailure, type RecordedObject } from '../providers/index.js';
import { isRefusal } from '../providers/view-diff.js';
import type { ResourceState } from '../state/types.js';

/** What was read of the account. */
export interface AccountRead {
  /** What was read of each data source the profile names. */
  lookups: Map<DataSource<unknown>, readonly unknown[]>;
  /** Live objects per kind; a kind that could not be read at all is absent. */
  items: Partial<Record<ResourceKind, unknown[]>>;
  /** Kinds read only by id (no list allowed): objects without state cannot be looked up. */
  byIdOnly: Set<ResourceKind>;
  /** Parents whose children of a kind could not be read, per kind. */
  failedParents: Partial<Record<ResourceKind, Map<string, Unreadable>>>;
  unreadable: Unreadable[];
  /** The API's clock after the reads (api/client.ts `serverNow`). */
  now: Date;
}

/** What one reader needs of the account (profiles.ts makes the plan's, export's and the access report's). */
export interface ReadProfile {
  /** The kinds read, in kind order. A kind that lives under a parent is read under the parents named below. */
  kinds: readonly ResourceKind[];
  /** The data sources read, once each, with the kind a refusal is reported under (none: the refusal is thrown). */
  lookups: ReadonlyMap<DataSource<unknown>, ResourceKind | undefined>;
  /** The objects cplane recorded: what a kind known only from state is, and what a kind listed by no token is read by id. */
  recorded: readonly ResourceState[];
  /** How many objects of a kind (under a parent) are expected: its lists are read in as many pages at once. */
  expected(kind: ResourceKind, parentId: string | undefined): number;
  /** The parents whose children of `kind` are read at once, alongside the account-wide lists. */
  parentsKnown(kind: ResourceKind): readonly string[];
  /** The parents found in what was read whose children of `kind` are read next (those already read are left out). */
  parentsFound(kind: ResourceKind, read: AccountRead): readonly string[];
  /**
   * What a refusal does. `note`: it is kept in `unreadable` (and `failedParents`), and the rest is read (a plan
   * lists what it could not read). `stop`: a kind or data source that cannot be read throws its error, and
   * children that could not be read under some parent throw an AbortError naming them (an export or a report that
   * silently left them out would look complete).
   */
  onRefusal: 'note' | 'stop';
  /**
   * Where `parentsFound` looks: in the parent kind's objects alone (their children are read as soon as that kind
   * is), or in everything the first wave read (the default: they are read after it).
   */
  parentsFoundIn?: 'parent kind' | 'first wave';
}

export interface ReadAccountOptions {
  account: string;
  /** Per-parent and by-id reads in flight at once. */
  parallelism: number;
  profile: ReadProfile;
}

const humanOnly = (client: ApiClient, operation: OperationName) =>
  client.identity === 'service_account' && routes[operation].identity === 'H';

/** The reason a read was refused, for the unreadable list; a read that failed is thrown on (see isRefusal). */
function reasonOf(error: unknown): { reason: string; requestId?: string } {
  if (isRefusal(error)) return { reason: `${error.status} ${error.reason}`, ...(error.requestId ? { requestId: error.requestId } : {}) };
  if (error instanceof IdentityRefusedError) return { reason: 'human-only operation: a Service Account token cannot read it' };
  throw error;
}

const HUMAN_ONLY_UNSENT = 'human-only operation: a Service Account token cannot read it; no request was sent';

/** The children that could not be read under some parent: unreadable, under their parent, and kept for a profile that stops. */
function noteFailures(
  read: AccountRead,
  refused: (ReadFailure & { kind: ResourceKind })[],
  kind: ResourceKind,
  failures: readonly ReadFailure[],
): void {
  for (const failure of failures) {
    const unreadable: Unreadable = {
      kind,
      operation: failure.operation,
      reason: failure.reason,
      ...(failure.requestId ? { requestId: failure.requestId } : {}),
    };
    const failed = (read.failedParents[kind] ??= new Map());
    if (failure.parentId) failed.set(failure.parentId, unreadable);
    read.unreadable.push(unreadable);
    refused.push({ kind, ...failure });
  }
}

/**
 * A read under way: what has been read so far, when each kind is read in full, and the whole read. A plan plans
 * the addresses of a kind read in full while the other reads are in flight (planner/make-plan.ts).
 */
export interface AccountReading {
  /** What has been read so far: a kind's entries are complete once `settled` resolved for it, all of it once `done` did. */
  read: AccountRead;
  /**
   * Resolves once the data sources and every kind given are read in full (no more of their objects will be read);
   * a kind the profile does not read is read at once. It never rejects: a read that failed rejects `done`.
   */
  settled(kinds: Iterable<ResourceKind>): Promise<void>;
  /** Resolves once a first read has ended (at once when there is none): the client has read the API's clock by then. */
  firstRead: Promise<void>;
  done: Promise<AccountRead>;
}

export async function readAccount(client: ApiClient, options: ReadAccountOptions): Promise<AccountRead> {
  return startReadingAccount(client, options).done;
}

/** Starts the reads of `readAccount` and answers as each kind is read in full. */
export function startReadingAccount(client: ApiClient, options: ReadAccountOptions): AccountReading {
  const { account, profile } = options;
  const noting = profile.onRefusal === 'note';
  const limiter = new Limiter(Math.max(1, options.parallelism));
  // The lists kinds share (records and their grants): read once in this read, by the first kind that asks.
  const shared = new Map<string, Promise<unknown>>();
  // Children that could not be read under some parent (a profile that stops throws on them once all is read).
  const refused: (ReadFailure & { kind: ResourceKind })[] = [];
  const read: AccountRead = {
    lookups: new Map(),
    items: {},
    byIdOnly: new Set(),
    failedParents: {},
    unreadable: [],
    now: client.serverNow(),
  };

  const readKind = async (kind: ResourceKind, parentIds: readonly string[]): Promise<void> => {
    const definition = definitionOf(kind);
    const recorded = () => profile.recorded.filter((r) => r.kind === kind);
    if (definition.observation === 'state') {
      // Known only from state: no request; what state recorded stands for the live objects.
      read.items[kind] = recorded().map(({ id, parents, inputs }): RecordedObject => ({ id, ...(parents ? { parents } : {}), inputs }));
      return;
    }
    // A profile that stops sends the request and lets the client refuse it (IdentityRefusedError, nothing is sent).
    const blocked = noting ? definition.refreshOperations.find((op) => humanOnly(client, op)) : undefined;
    try {
      if (!blocked) {
        const { items, failures } = await definition.refresh({
          client,
          account,
          parentIds: [...parentIds],
          limiter,
          shared,
          expected: (parentId) => profile.expected(kind, parentId),
        });
        read.items[kind] = [...(read.items[kind] ?? []), ...items];
        noteFailures(read, refused, kind, failures);
      } else if (!humanOnly(client, definition.readOperation)) {
        // Listing is human-only but reading one object is not: read those cplane manages, one by one.
        const found = await Promise.all(
          recorded().map(({ id, parents }) => limiter.run(() => definition.read({ client, account, id, parents }))),
        );
        read.items[kind] = found.filter((item) => item !== null);
        read.byIdOnly.add(kind);
      } else {
        read.unreadable.push({ kind, operation: blocked, reason: HUMAN_ONLY_UNSENT });
      }
    } catch (error) {
      if (!noting) throw error;
      read.unreadable.push({
        kind,
        operation: error instanceof ApiError ? error.operation : (definition.refreshOperations[0] ?? definition.readOperation),
        ...reasonOf(error),
      });
    }
  };

  const readLookup = async (source: DataSource<unknown>, needing: ResourceKind | undefined) => {
    try {
      read.lookups.set(source, await source.read(client));
    } catch (error) {
      if (!noting || needing === undefined) throw error;
      read.unreadable.push({ kind: needing, operation: source.operation, ...reasonOf(error) });
    }
  };

  return inWaves(profile, read, readKind, readLookup, () => {
    if (!noting) stopOn(refused);
    read.now = client.serverNow();
    return read;
  });
}

/**
 * The order of the reads. One wave of requests: the data sources, the account-wide lists, and the children of the
 * parents known now. Then the children of the parents found in what was read: once the data sources and their
 * parent kind are read, when the profile finds them there alone, or else once the whole first wave is. None are read
 * after a read failed. `finish` makes the read's result once every read has ended.
 */
function inWaves(
  profile: ReadProfile,
  read: AccountRead,
  readKind: (kind: ResourceKind, parentIds: readonly string[]) => Promise<void>,
  readLookup: (source: DataSource<unknown>, needing: ResourceKind | undefined) => Promise<void>,
  finish: () => AccountRead,
): AccountReading {
  const lookupsRead = Promise.all([...profile.lookups].map(([source, kind]) => readLookup(source, kind)));
  const firstWave = new Map(profile.kinds.map((kind) => [kind, readKind(kind, profile.parentsKnown(kind))]));
  let failed = false;
  const wholeWave = Promise.all([lookupsRead, ...firstWave.values()]);
  wholeWave.catch(() => undefined); // its failure is `done`'s
  const readFound = (kind: ResourceKind) => {
    if (failed) return undefined;
    const known = new Set(profile.parentsKnown(kind));
    const found = profile.parentsFound(kind, read).filter((id) => !known.has(id));
    return found.length > 0 ? readKind(kind, found) : undefined;
  };
  const inFull = new Map(
    [...firstWave].map(([kind, first]) => {
      const parent = parentOf(kind)?.kind;
      if (parent === undefined) return [kind, first] as const;
      const before = profile.parentsFoundIn === 'parent kind' ? Promise.all([lookupsRead, first, firstWave.get(parent)]) : wholeWave;
      return [kind, before.then(() => readFound(kind))] as const;
    }),
  );
  const done = Promise.all([lookupsRead, ...inFull.values()]).then(finish, (error: unknown) => {
    failed = true;
    throw error;
  });
  // The reads that ask the API (a kind known only from state asks nothing).
  const reads = [
    ...(profile.lookups.size > 0 ? [lookupsRead] : []),
    ...[...firstWave].filter(([kind]) => definitionOf(kind).observation !== 'state').map(([, first]) => first),
  ];
  return {
    read,
    done,
    firstRead: reads.length === 0 ? Promise.resolve() : Promise.race(reads.map(settledOnly)).then(() => undefined),
    settled: (kinds) =>
      Promise.all([settledOnly(lookupsRead), ...[...kinds].map((kind) => settledOnly(inFull.get(kind)))]).then(() => undefined),
  };
}

/** Resolves when `promise` settles, whichever way. */
const settledOnly = (promise: Promise<unknown> | undefined) =>
  promise?.then(
    () => undefined,
    () => undefined,
  );

/** The first children that could not be read under some parent, said as an error a person can act on. */
function stopOn(failures: readonly (ReadFailure & { kind: ResourceKind })[]): void {
  const first = failures[0];
  if (!first) return;
  const parent = parentOf(first.kind);
  const under = parent ? ` of ${definitionOf(parent.kind).config.noun} ${first.parentId ?? '?'}` : '';
  throw new AbortError(
    `Could not read ${first.operation}${under}: ${first.reason}${first.requestId ? ` (request id ${first.requestId})` : ''}` +
      (failures.length > 1 ? `, and ${failures.length - 1} more read(s) failed` : '') +
      '. Nothing was written.',
    `Check that the token may call ${[...new Set(failures.map((f) => f.operation))].join(', ')} in this account.`,
  );
}
