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

const keyOf = (kind: ResourceKind, id: string) => `${kind}:${id}`;

export class AddressBook {
  /** Address -> remote id. */
  private readonly ids = new Map<string, string>();
  /** `kind:id` -> the address that manages it now. */
  private readonly owners = new Map<string, string>();
  /** `kind:id` -> the address state records for it (never changed by the plan). */
  private readonly inState = new Map<string, string>();
  private readonly pending = new Set<string>();

  constructor(resources: StateData['resources']) {
    for (const address in resources) {
      const entry = resources[address]!;
      const key = keyOf(entry.kind, entry.id);
      this.ids.set(address, entry.id);
      this.owners.set(key, address);
      this.inState.set(key, address);
    }
  }

  /** The remote id of an address when it is known now and survives this plan. */
  idOf(address: string): string | undefined {
    return this.pending.has(address) ? undefined : this.ids.get(address);
  }

  /** Whether some address already manages the live object. */
  isManaged(kind: ResourceKind, id: string): boolean {
    return this.owners.has(keyOf(kind, id));
  }

  /** The address state records for the object `id` of `kind`. */
  stateAddressOf(kind: ResourceKind, id: string): string | undefined {
    return this.inState.get(keyOf(kind, id));
  }

  /** The address that manages the live object `id` of `kind` now (in state, or adopted by this plan). */
  ownerOf(kind: ResourceKind, id: string): string | undefined {
    return this.owners.get(keyOf(kind, id));
  }

  /** The address gets a new remote object in this plan. */
  markPending(address: string, kind: ResourceKind): void {
    const old = this.ids.get(address);
    if (old !== undefined) this.owners.delete(keyOf(kind, old));
    this.pending.add(address);
  }

  /** The address takes the live object `id` under management. */
  adopt(address: string, kind: ResourceKind, id: string): void {
    this.ids.set(address, id);
    this.owners.set(keyOf(kind, id), address);
  }

  /** What kind definitions may ask while planning: the account's facts, and ids and names from this book. */
  known(facts: AccountFacts): Known {
    return knownOf({
      ...facts,
      idOf: (address) => this.idOf(address),
      nameOf: (kind, id) => {
        const owner = this.owners.get(keyOf(kind, id));
        return owner === undefined ? id : localPart(owner);
      },
    });
  }
}
