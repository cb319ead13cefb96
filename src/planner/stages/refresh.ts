/**
 * Refresh: reads the live account with as few requests as the API allows.
 * Kinds read per account (all pages, the largest page size) run together;
 * kinds that live under a parent (`relations.within`: a gateway's tokens) are
 * read per parent that matters, bounded by `--parallelism`: parents in state
 * at once, alongside the account-wide lists, and parents found for adoption
 * once their list has arrived. A kind the token may not list (a Service
 * Account on a human-only list) is read by id when the API allows that, and
 * otherwise reported as unreadable: no human-only request is ever sent with a
 * Service Account token. A kind known only from state (`observation: 'state'`)
 * is not read at all: what state recorded stands for its live objects.
 */
import type { ApiClient } from '../../api/client.js';
import { ApiError, IdentityRefusedError } from '../../api/errors.js';
import { Limiter } from '../../api/limiter.js';
import type { OperationName } from '../../api/operations.js';
import { routes } from '../../api/routes.js';
import type { DesiredState, ResourceKind } from '../../config/types.js';
import type { Unreadable } from '../../plan-model/index.js';
import { emptyDirectory } from '../../config/index.js';
import { childKindsOf, finder, lister, kindOrder, parentOf, definitionOf, type DataSource } from '../../providers/index.js';
import type { Known, RecordedObject } from '../../providers/types.js';
import { isRefusal } from '../../providers/view-diff.js';
import type { StateData } from '../../state/types.js';
import { readClocks } from './clocks.js';

export interface LiveSnapshot {
  /** What was read of each data source a kind in use declares (`lookups`). */
  lookups: Map<DataSource<unknown>, readonly unknown[]>;
  /** Live objects per kind; a kind that could not be read at all is absent. */
  items: Partial<Record<ResourceKind, unknown[]>>;
  /** Kinds read only by id (no list allowed): objects without state cannot be looked up. */
  byIdOnly: Set<ResourceKind>;
  /** Parents whose children of a kind could not be read, per kind. */
  failedParents: Partial<Record<ResourceKind, Map<string, Unreadable>>>;
  unreadable: Unreadable[];
}

export interface RefreshInput {
  client: ApiClient;
  account: string;
  desired: DesiredState | undefined;
  state: StateData;
  parallelism: number;
}

const humanOnly = (client: ApiClient, operation: OperationName) => client.identity === 'service_account' && routes[operation].identity === 'H';

/** The reason a read was refused, for the plan's unreadable list; a read that failed is thrown on (see isRefusal). */
function reasonOf(error: unknown): { reason: string; requestId?: string } {
  if (isRefusal(error)) return { reason: `${error.status} ${error.reason}`, ...(error.requestId ? { requestId: error.requestId } : {}) };
  if (error instanceof IdentityRefusedError) return { reason: 'human-only operation: a Service Account token cannot read it' };
  throw error;
}

/** Kinds that live under a parent (a gateway's tokens), and those of each parent kind. */
const childKinds = kindOrder.filter((kind) => parentOf(kind));
/** Child kinds read from the API per parent (a kind known only from state is taken from state once). */
const childKindsRead = childKinds.filter((kind) => definitionOf(kind).observation !== 'state');
const childKindsByParent = new Map(kindOrder.map((kind) => [kind, childKindsOf(kind)]));

export async function refreshLive(input: RefreshInput): Promise<LiveSnapshot> {
  const { client, account, state } = input;
  const limiter = new Limiter(Math.max(1, input.parallelism));
  // The lists kinds share (records and their grants): read once in this refresh, by the first kind that asks.
  const shared = new Map<string, Promise<unknown>>();
  const snapshot: LiveSnapshot = { lookups: new Map(), items: {}, byIdOnly: new Set(), failedParents: {}, unreadable: [] };
  const entries = Object.values(state.resources);
  const { expected, managed, kindsInState } = outlineOf(entries);
  // A kind neither configured nor in state has nothing to compare: it is not read at all.
  const used = new Set<ResourceKind>([...(input.desired?.resources ?? []).map((r) => r.kind), ...kindsInState]);

  const readKind = async (kind: ResourceKind, parentIds: string[]): Promise<void> => {
    if (!used.has(kind)) return;
    const definition = definitionOf(kind);
    if (definition.observation === 'state') {
      // Known only from state: no request; what state recorded stands for the live objects.
      snapshot.items[kind] = entries.filter((r) => r.kind === kind).map(({ id, parents, inputs }): RecordedObject => ({ id, ...(parents ? { parents } : {}), inputs }));
      return;
    }
    const blocked = definition.refreshOperations.find((op) => humanOnly(client, op));
    try {
      if (!blocked) {
        const { items, failures } = await definition.refresh({ client, account, parentIds, limiter, shared, expected: (parentId) => expected.get(parentId === undefined ? kind : `${kind}:${parentId}`) ?? 0 });
        snapshot.items[kind] = [...(snapshot.items[kind] ?? []), ...items];
        for (const failure of failures) {
          const unreadable: Unreadable = { kind, operation: failure.operation, reason: failure.reason, ...(failure.requestId ? { requestId: failure.requestId } : {}) };
          const failed = (snapshot.failedParents[kind] ??= new Map());
          if (failure.parentId) failed.set(failure.parentId, unreadable);
          snapshot.unreadable.push(unreadable);
        }
      } else if (!humanOnly(client, definition.readOperation)) {
        // Listing is human-only but reading one object is not: read those cplane manages, one by one.
        const mine = entries.filter((r) => r.kind === kind);
        const found = await Promise.all(mine.map(({ id, parents }) => limiter.run(() => definition.read({ client, account, id, parents }))));
        snapshot.items[kind] = found.filter((item) => item !== null);
        snapshot.byIdOnly.add(kind);
      } else {
        snapshot.unreadable.push({ kind, operation: blocked, reason: 'human-only operation: a Service Account token cannot read it; no request was sent' });
      }
    } catch (error) {
      snapshot.unreadable.push({ kind, operation: error instanceof ApiError ? error.operation : definition.refreshOperations[0] ?? definition.readOperation, ...reasonOf(error) });
    }
  };

  // Each data source a kind in use declares is read once, whichever kinds share it; a failure is reported
  // under the first kind (in kind order) that needs it.
  const sources = new Map<DataSource<unknown>, ResourceKind>();
  for (const kind of kindOrder) for (const source of (used.has(kind) && definitionOf(kind).lookups) || []) if (!sources.has(source)) sources.set(source, kind);
  const attributesInUse = [...(input.desired?.resources ?? []).map((r) => [r.kind, r.attributes] as const), ...entries.map((e) => [e.kind, e.inputs] as const)];
  for (const [kind, attributes] of attributesInUse) for (const source of definitionOf(kind).lookupsFor?.(attributes) ?? []) if (!sources.has(source)) sources.set(source, kind);
  const readLookup = async (source: DataSource<unknown>, needing: ResourceKind) => {
    try {
      snapshot.lookups.set(source, await source.read(client));
    } catch (error) {
      snapshot.unreadable.push({ kind: needing, operation: source.operation, ...reasonOf(error) });
    }
  };

  // Children of the parents in state are read at once, alongside the account-wide lists, so that refresh
  // takes one wave of requests; only parents found for adoption wait for their list.
  await Promise.all([...[...sources].map(([source, kind]) => readLookup(source, kind)), ...kindOrder.map((kind) => readKind(kind, [...(managed.get(kind) ?? [])]))]);
  // Several kinds live under one parent kind (a record's grants, owner and shares): its live objects are
  // identified once for all of them.
  const adoptable = new Map<ResourceKind, Set<string>>();
  const adoptableUnder = (parent: ResourceKind) => adoptable.get(parent) ?? adoptable.set(parent, adoptableParents(input, snapshot, parent)).get(parent)!;
  await Promise.all(
    childKindsRead.map((kind) => {
      const parent = parentOf(kind);
      const adopting = parent ? [...adoptableUnder(parent.kind)].filter((id) => !managed.get(kind)?.has(id)) : [];
      return adopting.length > 0 ? readKind(kind, adopting) : undefined;
    }),
  );
  return snapshot;
}

/**
 * What refresh needs from state, in one pass over it (it runs before the first request is sent): the
 * kinds it holds; how many objects per kind, and per kind under each parent (`kind:parentId`); and,
 * per child kind, the parents cplane manages, whose children to read: parents in state, and parents of
 * such children in state.
 */
function outlineOf(entries: StateData['resources'][string][]) {
  const expected = new Map<string, number>();
  const managed = new Map<ResourceKind, Set<string>>(childKinds.map((kind) => [kind, new Set<string>()]));
  const count = (key: string) => expected.set(key, (expected.get(key) ?? 0) + 1);
  const kindsInState = new Set<ResourceKind>();
  for (const entry of entries) {
    kindsInState.add(entry.kind);
    count(entry.kind);
    const parent = parentOf(entry.kind);
    if (parent) {
      const parentId = entry.parents?.[parent.idField];
      count(`${entry.kind}:${parentId}`);
      if (parentId) managed.get(entry.kind)!.add(parentId);
    }
    for (const child of childKindsByParent.get(entry.kind) ?? []) managed.get(child)!.add(entry.id);
  }
  return { expected, managed, kindsInState };
}

/** Live objects of `kind` that the configuration claims by natural key and that still exist: their children may be adopted too. */
function adoptableParents(input: RefreshInput, snapshot: LiveSnapshot, kind: ResourceKind): Set<string> {
  const items = snapshot.items[kind] ?? [];
  if (items.length === 0) return new Set();
  const definition = definitionOf(kind);
  const known: Known = { account: input.account, now: input.client.serverNow(), nowForEnds: readClocks(input.client.serverNow(), new Date()).forEnds, find: finder(snapshot.lookups), list: lister(snapshot.lookups), directory: input.desired?.directory ?? emptyDirectory(), idOf: (address) => input.state.resources[address]?.id, nameOf: (_kind, id) => id };
  const claimed = new Set((input.desired?.resources ?? []).filter((r) => r.kind === kind).map((r) => definition.naturalKey({ desired: r, known })));
  const ids = new Set<string>();
  for (const live of items) {
    const identity = definition.identify({ live });
    if (identity.status === 'live' && claimed.has(identity.key)) ids.add(identity.id);
  }
  return ids;
}
