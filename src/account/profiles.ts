/**
 * What each reader of the account reads (read-account.ts `ReadProfile`), side by side:
 *
 * - a plan reads the kinds its configuration or state has, the data sources those kinds declare (and those their
 *   attributes name), the children of the parents in state at once and those of parents it adopts next, counts
 *   on state's sizes for its pages, and records what it could not read;
 * - an export reads every kind export writes, the AI vendors and the data sources its mappings name, the children
 *   of the parents it keeps, and stops at a refusal;
 * - the access report reads the kinds it is given (records and projects) and the Service Accounts, with no
 *   configuration or state (it reads while the configuration loads), and stops at a refusal.
 *
 * The same kind is read the same way by all three (archived records included, as the records kind lists them),
 * and a data source the same way (the Service Accounts as `GET /service-accounts` with the account header).
 */
import type { DesiredState, ResourceKind } from '../config/types.js';
import {
  childKindsOf,
  definitionOf,
  exportedDefinitionOf,
  exportKinds,
  kindOrder,
  knownOf,
  parentOf,
  serviceAccounts,
  vendors,
  type DataSource,
  type KindDefinition,
} from '../providers/index.js';
import type { ResourceState, StateData } from '../state/types.js';
import type { AccountRead, ReadProfile } from './read-account.js';

export interface PlanReading {
  account: string;
  /** The configuration; none when destroying (nothing is adopted). */
  desired: DesiredState | undefined;
  state: StateData;
  /** The two clocks the plan reads (planner/stages/clocks.ts), asked once the account-wide lists have arrived. */
  clocks(): { api: Date; forEnds: Date };
}

/** Kinds that live under a parent, and those of each parent kind. */
const childKinds = kindOrder.filter((kind) => parentOf(kind));
const childKindsByParent = new Map(kindOrder.map((kind) => [kind, childKindsOf(kind)]));
/** The kinds whose attributes name data sources (`lookupsFor`): only their addresses are asked. */
const kindsWithLookupsFor = new Map(
  kindOrder.flatMap((kind) => {
    const { lookupsFor } = definitionOf(kind);
    return lookupsFor ? [[kind, lookupsFor] as const] : [];
  }),
);

/** A plan's reading: what its configuration and state have, each list in as many pages at once as state expects. */
export function planProfile(input: PlanReading): ReadProfile {
  const { expected, managed, kindsInState, namedInState } = outlineOf(input.state.resources);
  // A kind neither configured nor in state has nothing to compare: it is not read at all.
  const configured = input.desired?.resources ?? [];
  const used = new Set<ResourceKind>(kindsInState);
  for (const r of configured) used.add(r.kind);
  // Each data source a kind in use declares is read once, whichever kinds share it; a refusal is reported under
  // the first kind (in kind order) that needs it, then under the first address that names it.
  const lookups = new Map<DataSource<unknown>, ResourceKind>();
  const add = (source: DataSource<unknown>, kind: ResourceKind) => void (lookups.has(source) || lookups.set(source, kind));
  for (const kind of kindOrder) for (const source of (used.has(kind) && definitionOf(kind).lookups) || []) add(source, kind);
  for (const r of configured) for (const source of kindsWithLookupsFor.get(r.kind)?.(r.attributes) ?? []) add(source, r.kind);
  for (const [source, kind] of namedInState) add(source, kind);
  // Several kinds live under one parent kind (a record's grants, owner and shares): its live objects are
  // identified once for all of them.
  const adoptable = new Map<ResourceKind, Set<string>>();
  let recorded: ResourceState[] | undefined;
  return {
    kinds: kindOrder.filter((kind) => used.has(kind)),
    lookups,
    // Read only for a kind known from state alone or read by id: made when first asked.
    get recorded() {
      return (recorded ??= Object.values(input.state.resources));
    },
    expected,
    parentsKnown: (kind) => [...(managed.get(kind) ?? [])],
    parentsFound(kind, read) {
      const parent = parentOf(kind)!.kind;
      if (definitionOf(kind).observation === 'state') return [];
      return [...(adoptable.get(parent) ?? adoptable.set(parent, adoptableParents(input, read, parent)).get(parent)!)];
    },
    onRefusal: 'note',
    // `adoptableParents` reads the parent kind alone: a kind's children are read as soon as it is.
    parentsFoundIn: 'parent kind',
  };
}

/**
 * What a plan needs from state, in one pass over it (it runs before the first request is sent): the kinds it
 * holds; how many objects per kind, and per kind under each parent (`expected`); and, per child kind, the
 * parents cplane manages, whose children to read: parents in state, and parents of such children in state; and the
 * data sources the entries name.
 */
function outlineOf(resources: StateData['resources']) {
  const managed = new Map<ResourceKind, Set<string>>(childKinds.map((kind) => [kind, new Set<string>()]));
  /** Per kind in state: how many, how many under each parent, and what an entry of it adds to `managed`. */
  const outlines = new Map<ResourceKind, KindOutline>();
  const outlineOfKind = (kind: ResourceKind): KindOutline => ({
    kind,
    all: 0,
    byParent: new Map(),
    parent: parentOf(kind),
    parentsManaged: managed.get(kind),
    childrensParents: childKindsByParent.get(kind)!.map((child) => managed.get(child)!),
    lookupsFor: kindsWithLookupsFor.get(kind),
  });
  /** The data sources the entries' inputs name (`lookupsFor`), each with the kind of the first entry naming it. */
  const namedInState = new Map<DataSource<unknown>, ResourceKind>();
  // `for in`, not `Object.values`: this pass runs before the first request leaves, and that array cost 3 ms at
  // 10,000 entries. Entries of one kind mostly come together: what a kind needs is looked up once per run of them.
  let outline: KindOutline | undefined;
  for (const address in resources) {
    const entry = resources[address]!;
    if (outline?.kind !== entry.kind) {
      outline = outlines.get(entry.kind);
      if (!outline) outlines.set(entry.kind, (outline = outlineOfKind(entry.kind)));
    }
    outline.all++;
    if (outline.parent) {
      const parentId = entry.parents?.[outline.parent.idField];
      outline.byParent.set(parentId, (outline.byParent.get(parentId) ?? 0) + 1);
      if (parentId) outline.parentsManaged!.add(parentId);
    }
    for (const parents of outline.childrensParents) parents.add(entry.id);
    for (const source of outline.lookupsFor?.(entry.inputs) ?? []) if (!namedInState.has(source)) namedInState.set(source, entry.kind);
  }
  const expected = (kind: ResourceKind, parentId: string | undefined) =>
    (parentId === undefined ? outlines.get(kind)?.all : outlines.get(kind)?.byParent.get(parentId)) ?? 0;
  return { expected, managed, kindsInState: outlines.keys(), namedInState };
}

interface KindOutline {
  kind: ResourceKind;
  all: number;
  byParent: Map<string | undefined, number>;
  parent: ReturnType<typeof parentOf>;
  /** For a kind that lives under a parent: the parents whose children of this kind are read. */
  parentsManaged: Set<string> | undefined;
  /** Those sets of each kind that lives under this one. */
  childrensParents: Set<string>[];
  lookupsFor: KindDefinition['lookupsFor'];
}

/**
 * Live objects of `kind` that the configuration claims by natural key and that still exist: their children may be
 * adopted too. Only an address not in state can adopt (the children of parents in state are read already, as
 * `parentsKnown`), so a plan whose configured parents are all in state identifies nothing.
 */
function adoptableParents(input: PlanReading, read: AccountRead, kind: ResourceKind): Set<string> {
  const items = read.items[kind] ?? [];
  const adopting = (input.desired?.resources ?? []).filter((r) => r.kind === kind && input.state.resources[r.address] === undefined);
  if (items.length === 0 || adopting.length === 0) return new Set();
  const definition = definitionOf(kind);
  const known = knownOf({
    account: input.account,
    lookups: read.lookups,
    clocks: input.clocks(),
    ...(input.desired ? { directory: input.desired.directory } : {}),
    idOf: (address) => input.state.resources[address]?.id,
  });
  const claimed = new Set(adopting.map((r) => definition.naturalKey({ desired: r, known })));
  const ids = new Set<string>();
  for (const live of items) {
    const identity = definition.identify({ live });
    if (identity.status === 'live' && claimed.has(identity.key)) ids.add(identity.id);
  }
  return ids;
}

/** The kinds export reads per account (the others live under a parent, read under the parents it keeps). */
const exportedPerAccount = exportKinds.filter((kind) => !exportedDefinitionOf(kind).relations.within);

/**
 * An export's reading: every kind it writes, the AI vendors (named by local name in its entries) and the data
 * sources its mappings name (`export.lookups`), each list page after page (nothing is known of its size), and the
 * children of the parents `keptParents` chooses in what was read. A kind that lives under a parent is read only
 * there, even one read through its parent's list.
 */
export function exportProfile(keptParents: (kind: ResourceKind, read: AccountRead) => readonly string[]): ReadProfile {
  const sources = [vendors as DataSource<unknown>, ...exportKinds.flatMap((kind) => exportedDefinitionOf(kind).export.lookups ?? [])];
  return {
    kinds: exportKinds,
    lookups: new Map(sources.map((source) => [source, undefined])),
    recorded: [],
    expected: () => 0,
    parentsKnown: () => [],
    parentsFound: (kind, read) => (exportedPerAccount.includes(kind) ? [] : keptParents(kind, read)),
    onRefusal: 'stop',
  };
}

/**
 * The access report's reading: `kinds` per account (the records, with their grants' ids, and the projects) and the
 * Service Accounts, all at once, with nothing of the configuration or state; a refusal stops the report.
 */
export function accessProfile(kinds: readonly ResourceKind[]): ReadProfile {
  return {
    kinds: kindOrder.filter((kind) => kinds.includes(kind)),
    lookups: new Map([[serviceAccounts as DataSource<unknown>, undefined]]),
    recorded: [],
    expected: () => 0,
    parentsKnown: () => [],
    parentsFound: () => [],
    onRefusal: 'stop',
  };
}
