/**
 * The one builder of `Known`, what kind definitions ask while planning or exporting: the plan (the address book,
 * planner/stages/address-book.ts), refresh's adoption (account/profiles.ts) and export (export/build-model.ts) all
 * make theirs here, each from what it has.
 */
import { emptyDirectory, type Directory } from '../config/index.js';
import type { ResourceKind } from '../config/types.js';
import { finder, lister, type LookupResults } from './lookups.js';
import type { Known } from './types.js';

export interface KnownFacts {
  account: string;
  /** What was read of each data source (`Known.find`, `Known.list`). */
  lookups: LookupResults;
  /** The API's clock and the clock what ends access compares with (planner/stages/clocks.ts). */
  clocks: { api: Date; forEnds: Date };
  /** The configuration's `directory:`; the empty one when there is none (export). */
  directory?: Directory;
  /** Ids of addresses: none when nothing is planned (export), state's before the plan decides. */
  idOf?: (address: string) => string | undefined;
  /** Names of remote objects: the id itself when no address manages it. */
  nameOf?: (kind: ResourceKind, id: string) => string;
}

export function knownOf(facts: KnownFacts): Known {
  const { account, lookups, clocks, directory = emptyDirectory(), idOf = () => undefined, nameOf = (_kind, id) => id } = facts;
  return {
    account,
    now: clocks.api,
    nowForEnds: clocks.forEnds,
    find: finder(lookups),
    list: lister(lookups),
    directory,
    idOf,
    nameOf,
  };
}
