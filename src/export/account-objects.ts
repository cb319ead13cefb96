/**
 * The live objects an export reads from one account, by kind: what read-account.ts produces and the
 * pure stages (select.ts, build-model.ts) take.
 */
import type { ProviderT } from '../api/shapes.js';
import type { ResourceKind } from '../config/types.js';
import type { LookupResults } from '../providers/index.js';

/** The live objects of one account (or of the selected projects), as the API returns them. */
export interface AccountObjects {
  account: string;
  /** The AI vendors (the API's "providers"). */
  vendors: ProviderT[];
  /** What was read of each data source: the AI vendors, and those an export mapping declares (`export.lookups`: the Service Accounts). */
  lookups: LookupResults;
  /**
   * The live objects of each kind, archived and revoked ones included (the model counts what it skips);
   * a kind read per parent only under the parents export keeps.
   */
  objects: Partial<Record<ResourceKind, readonly unknown[]>>;
  /** The API's clock after the reads. */
  now: Date;
}
