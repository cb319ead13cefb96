/**
 * The address book: which remote id each address names while the plan is
 * made. It starts from state; an address adopted by this plan gets the live
 * object's id; an address that gets a new object in this plan (create,
 * replace) is pending: references to it become `$ref`s resolved at apply,
 * and its old id no longer names it. The desired stage updates it address by
 * address, in dependency order, so each address sees the decisions made for
 * the ones it depends on, and returns it: the later stages read it.
 */
import type { ResourceKind } from '../../config/types.js';
import { localPart } from '../../plan-model/index.js';
import { knownOf, type KnownFacts } from '../../providers/index.js';
import type { PlanClocks } from './clocks.js';
import type { Known } from '../../providers/types.js';
import type { StateData } from '../../state/types.js';

/** What a plan knows of the account besides addresses: its id, the two clocks (with their skew), the data sources, the directory. */
export type AccountFacts = Omit<KnownFacts, 'idOf' | 'nameOf' | 'clocks'> & { clocks: PlanClocks };

/** Per kind, remote id -> the address state records for it. */
export type ObjectsInState = ReadonlyMap<ResourceKind, ReadonlyMap<string, string>>;

/** Per kind, remote id -> the address that manages it now, or null for an object its address replaces. */
type ChangedOwners = Map<ResourceKind, Map<string, string | null>>;

/** State's addresses by object; make-plan.ts makes it while the refresh requests are in flight. */
export function objectsInState(resources: StateData['resources']): ObjectsInState {
  const index = new Map<ResourceKind, Map<string, string>>();
  for (const address in resources) {
    const entry = resources[address]!;
    let ids = index.get(entry.kind);
    if (!ids) index.set(entry.kind, (ids = new Map()));
    ids.set(entry.id, address);
  }
  return index;
}

// The book is made for every plan (twice: make-plan.ts's for the checks of models, and the desired stage's) and
// asked about every address, so it keeps only what the plan changes and reads the rest from state and from
// `objectsInState`: copying 10,000 entries into maps keyed by `kind:id` strings, after the refresh, was a
// measurable part of a plan (docs/performance.md, "Plan").
export class AddressBook {
  /** Address -> remote id, for the addresses adopted by this plan; every other address has its state's id. */
  private readonly adopted = new Map<string, string>();
  /** The owners this plan changed. */
  private readonly changedOwners: ChangedOwners = new Map();
  private readonly pending = new Set<string>();

  /** `inState`, when not given, is made on the first question that needs it. */
  constructor(
    private readonly resources: StateData['resources'],
    private inState?: ObjectsInState,
  ) {}

  /** The remote id of an address when it is known now and survives this plan. */
  idOf(address: string): string | undefined {
    return this.pending.has(address) ? undefined : this.currentId(address);
  }

  /** Whether some address already manages the live object. */
  isManaged(kind: ResourceKind, id: string): boolean {
    return this.ownerOf(kind, id) !== undefined;
  }

  /** The address state records for the object `id` of `kind`. */
  stateAddressOf(kind: ResourceKind, id: string): string | undefined {
    this.inState ??= objectsInState(this.resources);
    return this.inState.get(kind)?.get(id);
  }

  /** The address that manages the live object `id` of `kind` now (in state, or adopted by this plan). */
  ownerOf(kind: ResourceKind, id: string): string | undefined {
    const changed = this.changedOwners.get(kind)?.get(id);
    return changed === undefined ? this.stateAddressOf(kind, id) : (changed ?? undefined);
  }

  /** The address gets a new remote object in this plan. */
  markPending(address: string, kind: ResourceKind): void {
    const old = this.currentId(address);
    if (old !== undefined) this.setOwner(kind, old, null);
    this.pending.add(address);
  }

  /** The address takes the live object `id` under management. */
  adopt(address: string, kind: ResourceKind, id: string): void {
    this.adopted.set(address, id);
    this.setOwner(kind, id, address);
  }

  /** What kind definitions may ask while planning: the account's facts, and ids and names from this book. */
  known(facts: AccountFacts): Known {
    return knownOf({
      ...facts,
      idOf: (address) => this.idOf(address),
      nameOf: (kind, id) => {
        const owner = this.ownerOf(kind, id);
        return owner === undefined ? id : localPart(owner);
      },
    });
  }

  private currentId(address: string): string | undefined {
    return this.adopted.get(address) ?? this.resources[address]?.id;
  }

  private setOwner(kind: ResourceKind, id: string, address: string | null): void {
    let ids = this.changedOwners.get(kind);
    if (!ids) this.changedOwners.set(kind, (ids = new Map()));
    ids.set(id, address);
  }
}
