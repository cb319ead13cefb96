/**
 * The one small interface every resource kind implements, its kind definition (after Pulumi's
 * providers; "provider" in cplane is only the API's AI provider, a vendor): request objects in, response
 * objects out. A kind definition reads live
 * objects through the typed client, turns them into a "view" with the field
 * names of the configuration, reports facts about differences, and returns the
 * writes that would reconcile them. It never executes a write: the planner
 * puts the writes in the plan and the applier sends them.
 */
import type { ApiClient } from '../api/client.js';
import type { Limiter } from '../api/limiter.js';
import type { OperationName } from '../api/operations.js';
import type { Directory } from '../config/types.js';
import type { Entry, KindBlock } from '../config/blocks/kind-block.js';
import type { Attributes, DesiredResource, ResourceKind, SourceRange } from '../config/types.js';
import type { AccessPath, FieldChange, PlannedWrite, SpendLimit, StepCause } from '../plan-model/index.js';
import type { ResourceState } from '../state/types.js';
import type { DataSource } from './lookups.js';

/** A write as a kind definition describes it; the planner gives it its id and Idempotency-Key. */
export type WriteSpec = Omit<PlannedWrite, 'id' | 'idempotencyKey'>;

/**
 * Attribute values in configuration terms, flattened to dotted paths
 * (`settings.cache.ttlSeconds`); references are local names, set-like lists are sorted.
 * A key that is absent is not managed.
 */
export type View = Record<string, unknown>;

/**
 * What the planner knows while planning one address, as kind definitions query it (`known`): the account, the
 * objects of the data sources a kind declares (`lookups`, `DataSource`), the directory, ids and names of addresses.
 */
export interface Known {
  account: string;
  /** An object of a data source the kind declares in `lookups` (an AI vendor), by name or id; undefined when there is none. */
  find<T>(source: DataSource<T>, nameOrId: string): T | undefined;
  /** Every object refresh read of a data source the kind declares; undefined when it could not be read (for suggestions, and to tell "unknown" from "unread"). */
  list<T>(source: DataSource<T>): readonly T[] | undefined;
  /** The configuration's `directory:` (users and groups with their public keys, roles), empty when it has none. */
  directory: Directory;
  /** The remote id of an address when it is known now and survives this plan; undefined when created or replaced by it. */
  idOf(address: string): string | undefined;
  /** The local name that manages the remote object `id` of `kind`, or the id itself when none does. */
  nameOf(kind: ResourceKind, id: string): string;
  /** The API's clock when the plan is made (expiry and due dates are compared with it). */
  now: Date;
  /**
   * The clock what ends access is compared with (a grant's `until`, a token's expiry, the end of an overlap): the
   * later of the API's clock and this machine's, so access never outlives what either says (planner/stages/clocks.ts).
   */
  nowForEnds: Date;
}

/** Where a live object is and whether it still counts as existing. */
export interface LiveIdentity {
  id: string;
  parents?: Record<string, string>;
  /** The natural key used for adoption (e.g. `${projectId}/${name}`). */
  key: string;
  /** `archived` can be brought back by an update; `gone` (revoked, disabled) means deleted outside cplane. */
  status: 'live' | 'archived' | 'gone';
  /** When the object stops working (a token's `expires_at`): once passed, the planner replaces it. */
  expiresAt?: string;
}

export interface RefreshRequest {
  client: ApiClient;
  account: string;
  /** For a kind read per parent (`relations.within`): the parents whose children to read. */
  parentIds: string[];
  /** Bounds the per-gateway requests (`--parallelism`). */
  limiter: Limiter;
  /** How many objects of the kind cplane expects (from state), under one parent when given: pages are requested together. */
  expected(parentId?: string): number;
  /**
   * The lists the kinds of one refresh share, by operation (the records list, which records and their grants are
   * observed through): made empty by each refresh and handed to every kind it reads, so a list is read once.
   */
  shared: Map<string, Promise<unknown>>;
}

/** A read that failed for one parent; the rest of the kind was read. */
export interface ReadFailure {
  operation: OperationName;
  reason: string;
  requestId?: string;
  parentId?: string;
}

export interface RefreshResponse<L> {
  items: L[];
  failures: ReadFailure[];
}

export interface ReadRequest {
  client: ApiClient;
  account: string;
  id: string;
  parents?: Record<string, string>;
}

export interface DiffRequest<A extends object, L> {
  desired: DesiredResource<A>;
  live: L;
  /** What cplane last applied, when the address is in state. */
  state?: ResourceState;
  known: Known;
  /** Write-only fields (`secret`, `value`, `headers.X`) whose value differs from what was last applied. */
  changedSecrets: string[];
  /** `view` of `live` with this `known`, when the planner made it already (to compare it with state): not made again. */
  observed?: View;
}

/** Why something cannot be planned: a stable code and a sentence; the planner adds the address and its source range. */
export interface Problem {
  code: string;
  summary: string;
  detail?: string;
  /** The field of the entry whose value is wrong (`serviceAccount`): the problem points at it rather than at the entry. */
  field?: string;
  /** Where the wrong value is written when it is not in the entry (a key pinned in `directory:`): the problem points there. */
  at?: SourceRange;
}

export interface DiffResponse {
  changes: FieldChange[];
  /** Keys (view paths or secret fields) that differ. */
  changedKeys: string[];
  /** Keys whose change cannot be made in place. */
  replaceKeys: string[];
  /** Keys changed by rotating the object in place (a credential's secret). */
  rotateKeys?: string[];
  /** Values the writes set that the configuration does not say (a due date moved by a rotation), recorded as applied inputs. */
  inputs?: Record<string, unknown>;
  /** Why the change cannot be planned at all (e.g. moving a gateway to another project). */
  problems?: Problem[];
  /** Stable codes of why the step is planned (a rotation because a reader's grant ended: `grant-expired`). */
  causes?: StepCause[];
}

export interface CreateRequest<A extends object> {
  desired: DesiredResource<A>;
  known: Known;
}

export interface UpdateRequest<A extends object, L> {
  desired: DesiredResource<A>;
  live: L;
  /** Remote id of the object. */
  id: string;
  state?: ResourceState;
  changedKeys: string[];
  known: Known;
}

export interface DeleteRequest {
  address: string;
  id: string;
  parents?: Record<string, string>;
  /** Live object, when it is still there. */
  live: unknown;
  /** Live objects that live under this one (`relations.within` of their kind), by kind: for consequences (e.g. how many tokens a gateway deletion revokes). */
  children: Partial<Record<ResourceKind, unknown[]>>;
}

export interface WritesResponse {
  writes: WriteSpec[];
  /** For a create: values the writes set that the configuration does not say (the key a grant is wrapped for), recorded as applied inputs. */
  inputs?: Record<string, unknown>;
  notes?: string[];
  /** Why the writes cannot be planned (e.g. an unknown vendor name). */
  problems?: Problem[];
}

/**
 * What a kind is to other kinds, as data: the planner, refresh, export adoption and the state commands read
 * these declarations instead of branching on a kind's name.
 */
export interface Relations {
  /** Keys of `parents` (in state and in LiveIdentity) and the kind each one names: `{ gatewayId: 'gateway' }`. */
  parentIds?: Record<string, ResourceKind>;
  /**
   * The object this kind lives under (a gateway's tokens). Such a kind is refreshed per parent (the others
   * per account), goes with its parent: when the parent is removed it leaves state without a write of its own,
   * and when the parent is gone so is it.
   */
  within?: {
    /** The key of `parents` holding the parent's id (its kind is `parentIds[idField]`). */
    idField: string;
    /** The configuration attribute holding the parent's local name (`gateway: prod` -> `gateway.prod`). */
    attribute: string;
    /** Why it leaves state with its parent, before the parent's address: `revoked by deleting`. */
    removedWith: string;
  };
  /** Outputs kept in state (name -> field of the live object), recorded when the object is adopted without a write. */
  outputs?: Record<string, string>;
  /** A one-time secret sealed into state at create, which `cplane output ADDRESS --reveal` shows. */
  revealable?: string;
  /**
   * Where a create's answer says when the object was made: an object whose one-time secret is delivered elsewhere
   * (`deliverTo`) and is replaced keeps its old one superseded from then until the delivery is done.
   */
  createdAt?: string;
  /** The configuration attribute holding the local name of each parent in `parentIds` (`{ projectId: 'project' }`), when `within` does not say it. */
  parentAttributes?: Record<string, string>;
  /** The word for an object whose status is `gone` (identify), in `… outside cplane`: `revoked` for a token. Default `deleted`. */
  goneAs?: string;
  /** The word for an object its list no longer holds, in `… outside cplane`: `revoked` for a grant, listed only while it holds. Default `deleted`. */
  missingAs?: string;
  /** The write-only field whose value readers read through wrappers of its data key (a record's `value`): `--rewrap` writes it again. */
  wrappedValue?: string;
  /**
   * For a kind whose `touches` say it `grants` a principal access to its parent: how the access report shows that
   * path (`accessKinds` in index.ts joins the two; the report and offboarding read them, never a kind's name).
   */
  access?: {
    /** The path's name in the report (`user-share`, `project-group-role`). */
    via: AccessPath;
    /** The attribute naming the role the principal gets, for a role (a group's role on a project). */
    role?: string;
    /** The principals' ids the live parent lists as holding it (a record's `grants.user_ids`); absent: no operation reads it back. */
    holders?(parent: unknown): readonly string[];
  };
}

/**
 * What stands for the live object of a kind known only from state (`observation: 'state'`): the entry state
 * recorded when cplane last applied it, its inputs being the attributes it applied.
 */
export interface RecordedObject {
  id: string;
  parents?: Record<string, string>;
  inputs: Record<string, unknown>;
}

/** How live objects of a kind are seen. */
export type Observation<L, E = Entry> =
  | {
      /** Read back through the API (the default): listed per account or per parent, and read by id. */
      readonly observation?: 'api';
      /** Operations `refresh` sends: the planner skips them (and reports why) for a token that may not call them. */
      readonly refreshOperations: OperationName[];
      /** Operation `read` sends. */
      readonly readOperation: OperationName;
      /** Bulk read of every live object of the kind (all pages). */
      refresh(req: RefreshRequest): Promise<RefreshResponse<L>>;
      /** One object by id; null when it no longer exists. */
      read(req: ReadRequest): Promise<L | null>;
      /** How `cplane export` writes the kind's live objects as configuration; absent: export leaves the kind out. */
      readonly export?: ExportMapping<L, E>;
    }
  | {
      /**
       * Known only from state: no operation reads the kind back (a project's group role). Refresh sends no
       * request for it; each entry state recorded stands for its live object (a `RecordedObject`), so the kind is
       * diffed against what cplane last applied, is never planned as deleted outside cplane, and the plan lists
       * it as not verifiable from the API (`Plan.notVerifiable`). Nothing is read, so nothing is exported.
       */
      readonly observation: 'state';
    };

/** A reason `cplane export` leaves a live object out. */
export interface ExportSkip<L> {
  /** Whether the object is left out for this reason. `exported` answers for the kinds before this one in kind order. */
  when(live: L, account: ExportedSoFar): boolean;
  /** How the report counts objects left out for this reason (`archived project`); one left out silently has none. */
  count?: { key: string; one: string; many?: string };
}

/** What export knows of the account while it decides which objects to export, kind after kind. */
export interface ExportedSoFar {
  /** Whether the account has an object of `kind` with this id (whether or not it is exported). */
  listed(kind: ResourceKind, id: string): boolean;
  /** Whether the object of `kind` with this id is exported (answered for kinds before the asking one). */
  exported(kind: ResourceKind, id: string): boolean;
  /** The account's listed objects of `kind` (exported or not): a token's renewal is one of its gateway's other tokens. */
  objects(kind: ResourceKind): readonly unknown[];
}

/** What an export mapping may ask and report while it makes one configuration entry. */
export interface ExportEntryRequest<L> {
  live: L;
  /** The entry's local name (for a `single` block, its parent's). */
  local: string;
  /** The local name an exported object of `kind` got, by its id; undefined when it is not exported. */
  nameOf(kind: ResourceKind, id: string): string | undefined;
  /** An AI vendor's name by id (the id itself when the account lists none). */
  vendorName(id: string): string;
  /** The account, and the objects of the data sources the mapping declares in `lookups` (its Service Accounts). */
  known: Pick<Known, 'account' | 'find' | 'list'>;
  /**
   * The `{ env: NAME }` placeholder for a write-only value: NAME is made of `parts` (each in upper snake case,
   * joined by `_`: `['CPLANE_SECRET', 'openai-prod']` gives CPLANE_SECRET_OPENAI_PROD), made unique in the
   * folder; `what` tells people what to set it to.
   */
  placeholder(parts: string[], what: string): { env: string };
  /** A comment above `field` of the entry in the file. */
  comment(field: string, text: string): void;
  /** A note above the entry's key in the file (`Note: ...`). */
  note(text: string): void;
}

/**
 * How `cplane export` turns the kind's live objects (listed by `refresh`, per parent for a kind `within` one)
 * into configuration entries. src/export/ walks the definitions with it and names no kind.
 */
export interface ExportMapping<L, E> {
  /** The word the export report counts exported objects with; the block's `noun` by default. */
  noun?: string;
  /** The object's own name, made into its local name (a slug, `-2` on a clash). Unused for a `single` block. */
  name?(live: L): string;
  /** Reasons an object is left out, checked in order. */
  skip?: ExportSkip<L>[];
  /** The data sources the entries name objects of (a token's Service Account by name): export reads each once. */
  lookups?: readonly DataSource<unknown>[];
  /** The objects of other kinds an object refers to by id (a gateway's credentials). */
  refersTo?(live: L): { kind: ResourceKind; ids: readonly string[] }[];
  /** When `--project` narrows the export, only the objects that exported objects refer to are exported. */
  onlyReferencedWhenNarrowed?: boolean;
  /** The kind `--project` selects by name: objects of other kinds that belong to one (`parentIds`) follow the selection. */
  selectedByName?: boolean;
  /** The configuration entry; entries of the kinds declared inside it are added by export. Unused for a list block. */
  entry(req: ExportEntryRequest<L>): E;
  /**
   * For a list block (`config.list`, a record's `grants.serviceAccounts`): the name the object is listed as in
   * its parent's list, which is also its local name (a Service Account's name). Unused when `directory` is set.
   */
  listItem?(live: L, known: ExportEntryRequest<L>['known']): string;
  /**
   * The object names a principal that only the configuration's `directory:` declares (a user a record is shared
   * with): export writes one directory entry per id, named from the id, with its public key as a placeholder to
   * fill in (no operation returns it), and lists the object by that entry's name.
   */
  directory?: { section: 'users' | 'groups'; noun: string; id(live: L): string };
  /**
   * The key the object's reader is pinned to (a Service Account a record is granted to): export writes it in
   * `directory.serviceAccounts`, so the exported folder wraps for no other key. Undefined when the API's answer
   * does not hold together (a key id that is not its key's).
   */
  pin?(live: L, known: ExportEntryRequest<L>['known']): { name: string; keyId: string } | undefined;
  /** A comment on the key that holds the kind's entries inside their parent (`records:`), when there are some. */
  holderComment?: string;
  /**
   * For a top-level kind, the file its entries go to: one file per entry, `<kind>-<local>.yaml`, with what is
   * declared inside it (`perEntry`); the file of the entry an attribute names (`with`); or else one file, `<key>.yaml`.
   */
  file?: { perEntry: (local: string) => string[] } | { with: { attribute: string; kind: ResourceKind } } | { description: string[] };
  /** The kind's write-only value is never exported: the report counts the entries written without it. */
  withoutValue?: boolean;
  /**
   * `cplane export --group` (src/export/group.ts): entries that differ only in the attribute `file.with` names and in
   * these fields, which default to the local name, are written once as a forEach template (a team's gateways).
   */
  template?: { localNameFields: readonly string[] };
}

/** `A`: the kind's attributes; `L`: its live object as the API returns it; `E`: its entry in a configuration file. */
export type KindDefinition<A extends object = Attributes, L = unknown, E = Entry> = DefinitionCore<A, L, E> & Observation<L, E>;

interface DefinitionCore<A extends object, L, E> {
  readonly kind: ResourceKind;
  /** The kind's configuration block: where it is written, its defaults, write-only inputs and references. */
  readonly config: KindBlock<A, E>;
  readonly relations: Relations;
  /** The data sources planning the kind looks objects up in (`known.find`): refresh reads each once. */
  readonly lookups?: readonly DataSource<unknown>[];
  /**
   * The data sources one resource needs when not every resource of the kind does (a token issued to a Service
   * Account): given its configured attributes, or the inputs state recorded, so refresh reads a source only
   * when something names an object in it.
   */
  lookupsFor?(attributes: A): readonly DataSource<unknown>[];
  /**
   * Every operation the kind's writes may send. A pending write of the journal whose operation is not one of
   * its address's kind is refused before it is resent (test/providers/conformance.test.ts keeps this list whole).
   */
  readonly writeOperations: readonly OperationName[];
  /**
   * Action that takes an address off the account when it leaves the configuration; `forget` when the API has
   * no operation that removes it: the address leaves state without a write, and `planDelete`'s notes say where
   * a person removes it.
   */
  readonly removeAction: 'archive' | 'delete' | 'revoke' | 'forget';
  /**
   * Write-only fields (`secret`, `headers.*`): the only ones a plan may fill from a secret source with a
   * `$secret` or `$encrypt` placeholder. A saved plan that puts one anywhere else is refused.
   */
  readonly writeOnly?: readonly string[];
  /**
   * A write-only value the configuration may leave out (a record's `value`): the object is then created, or
   * left, without one. `present` says whether a live object holds one, so a plan can list those that do not.
   */
  readonly optionalValue?: { field: string; present(live: L): boolean };
  identify(req: { live: L }): LiveIdentity;
  /** The natural key of a desired object, or undefined while a parent has no id yet. */
  naturalKey(req: { desired: DesiredResource<A>; known: Known }): string | undefined;
  /** Addresses the attributes refer to (parents and references). */
  references(req: { attributes: A }): string[];
  /** The live object in configuration terms. */
  view(req: { live: L; known: Known }): View;
  /** Desired (or last applied) attributes in the same terms. */
  desiredView(req: { attributes: A; known: Known }): View;
  diff(req: DiffRequest<A, L>): DiffResponse;
  planCreate(req: CreateRequest<A>): WritesResponse;
  planUpdate(req: UpdateRequest<A, L>): WritesResponse;
  planDelete(req: DeleteRequest): WritesResponse;
  /**
   * Renewal before expiry, for a kind whose objects expire and carry a one-time secret: within `beforeDays` of
   * its `expiresAt` the planner creates a new object and keeps the old one working for `overlapHours`, timed
   * from `createdAt` (a path into the create's answer). Undefined: the object is only replaced once expired.
   */
  renewal?(req: { attributes: A }): Renewal | undefined;
  /**
   * When a configured object must stop existing (a grant's `until`), and why it was made: once the API's clock
   * passes `at`, every plan removes it (`planDelete`) and never creates it again, though it stays configured.
   */
  endsAt?(req: { attributes: A }): { at: string; reason?: string } | undefined;
  /** What the kind's objects authorise to be spent (a gateway, a token): the planner's spend stage reads this, never a kind's name. */
  readonly spend?: SpendFacts;
  /** Fields that name AI models, checked against the models the credentials reach (planner/checks/models.ts). */
  readonly models?: ModelFacts<A>;
  /** The kind's objects reach AI models: those of the vendor they are for (a credential). */
  readonly reachesModels?: { vendor(attributes: A): string };
}

/** Spend facts of a kind, read from a view (configuration terms: the live object's, or the desired one's over it). */
export interface SpendFacts {
  /** View paths whose change touches spend: a step that changes one (or creates or removes the object) shows spend. */
  readonly paths: readonly string[];
  /** The limit the view sets; null when it sets none. */
  limit(view: View): SpendLimit | null;
  /** The models the view lets traffic use; empty: every model. */
  allowedModels?(view: View): readonly string[];
  /** Whether the view can spend at all (a token without the `run` scope sends no model request); absent: it can. */
  spends?(view: View): boolean;
}

/** Model names in a kind's configuration. */
export interface ModelFacts<A> {
  /** The fields naming models, with the names each holds. */
  named(attributes: A): { field: string; models: readonly string[] }[];
  /** The attribute holding the local names of the credentials whose models are reachable; absent: those of the parent (`relations.within`). */
  readonly through?: string;
}

export interface Renewal {
  beforeDays: number;
  overlapHours: number;
  createdAt: string;
}
