/**
 * The one small interface every resource kind implements (after Pulumi's
 * providers): request objects in, response objects out. A provider reads live
 * objects through the typed client, turns them into a "view" with the field
 * names of the configuration, reports facts about differences, and returns the
 * writes that would reconcile them. It never executes a write: the planner
 * puts the writes in the plan and the applier sends them.
 */
import type { ApiClient } from '../api/client.js';
import type { Limiter } from '../api/limiter.js';
import type { OperationName } from '../api/operations.js';
import type { ProviderT } from '../api/shapes.js';
import type { AttributesByKind, DesiredResource, ResourceKind } from '../config/types.js';
import type { FieldChange, PlannedWrite } from '../plan-model/index.js';
import type { ResourceState } from '../state/types.js';

/** A write as a provider describes it; the planner gives it its id and Idempotency-Key. */
export type WriteSpec = Omit<PlannedWrite, 'id' | 'idempotencyKey'>;

/**
 * Attribute values in configuration terms, flattened to dotted paths
 * (`settings.cache.ttlSeconds`); references are local names, set-like lists are sorted.
 * A key that is absent is not managed.
 */
export type View = Record<string, unknown>;

/** What the planner knows while planning one address. */
export interface Lookups {
  account: string;
  /** A provider (the AI vendor) by name or id. */
  provider(nameOrId: string): ProviderT | undefined;
  /** The remote id of an address when it is known now and survives this plan; undefined when created or replaced by it. */
  idOf(address: string): string | undefined;
  /** The local name that manages the remote object `id` of `kind`, or the id itself when none does. */
  nameOf(kind: ResourceKind, id: string): string;
}

/** Where a live object is and whether it still counts as existing. */
export interface LiveIdentity {
  id: string;
  parents?: Record<string, string>;
  /** The natural key used for adoption (e.g. `${projectId}/${name}`). */
  key: string;
  /** `archived` can be brought back by an update; `gone` (revoked, disabled) means deleted outside cplane. */
  status: 'live' | 'archived' | 'gone';
}

export interface RefreshRequest {
  client: ApiClient;
  account: string;
  /** Gateways whose children (tokens, OTel export) to read. */
  gatewayIds: string[];
  /** Bounds the per-gateway requests (`--parallelism`). */
  limiter: Limiter;
  /** How many objects of the kind cplane expects (from state), on one gateway when given: pages are requested together. */
  expected(gatewayId?: string): number;
}

/** A read that failed for one parent; the rest of the kind was read. */
export interface ReadFailure {
  operation: OperationName;
  reason: string;
  requestId?: string;
  gatewayId?: string;
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

export interface DiffRequest<K extends ResourceKind, L> {
  desired: DesiredResource<K>;
  live: L;
  /** What cplane last applied, when the address is in state. */
  state?: ResourceState;
  lookups: Lookups;
  /** Write-only fields (`secret`, `value`, `headers.X`) whose value differs from what was last applied. */
  changedSecrets: string[];
}

export interface DiffResponse {
  changes: FieldChange[];
  /** Keys (view paths or secret fields) that differ. */
  changedKeys: string[];
  /** Keys whose change cannot be made in place. */
  replaceKeys: string[];
  /** Keys changed by rotating the object in place (a credential's secret). */
  rotateKeys?: string[];
  /** Why the change cannot be planned at all (e.g. moving a gateway to another project). */
  problems?: string[];
}

export interface CreateRequest<K extends ResourceKind> {
  desired: DesiredResource<K>;
  lookups: Lookups;
}

export interface UpdateRequest<K extends ResourceKind, L> {
  desired: DesiredResource<K>;
  live: L;
  /** Remote id of the object. */
  id: string;
  state?: ResourceState;
  changedKeys: string[];
  lookups: Lookups;
}

export interface DeleteRequest {
  address: string;
  id: string;
  parents?: Record<string, string>;
  /** Live object, when it is still there. */
  live: unknown;
  /** Live objects of every kind, for consequences (e.g. how many tokens a gateway deletion revokes). */
  related: { activeTokens: number };
}

export interface WritesResponse {
  writes: WriteSpec[];
  notes?: string[];
  /** Why the writes cannot be planned (e.g. an unknown provider name). */
  problems?: string[];
}

export interface ResourceProvider<K extends ResourceKind = ResourceKind, L = unknown> {
  readonly kind: K;
  /** Operations `refresh` sends: the planner skips them (and reports why) for a token that may not call them. */
  readonly refreshOperations: OperationName[];
  /** Operation `read` sends. */
  readonly readOperation: OperationName;
  /** Action that takes an address off the account when it leaves the configuration. */
  readonly removeAction: 'archive' | 'delete' | 'revoke';
  /** Bulk read of every live object of the kind (all pages). */
  refresh(req: RefreshRequest): Promise<RefreshResponse<L>>;
  /** One object by id; null when it no longer exists. */
  read(req: ReadRequest): Promise<L | null>;
  identify(live: L): LiveIdentity;
  /** The natural key of a desired object, or undefined while a parent has no id yet. */
  naturalKey(desired: DesiredResource<K>, lookups: Lookups): string | undefined;
  /** Addresses the attributes refer to (parents and references). */
  references(attributes: AttributesByKind[K]): string[];
  /** The live object in configuration terms. */
  view(live: L, lookups: Lookups): View;
  /** Desired (or last applied) attributes in the same terms. */
  desiredView(attributes: AttributesByKind[K], lookups: Lookups): View;
  diff(req: DiffRequest<K, L>): DiffResponse;
  planCreate(req: CreateRequest<K>): WritesResponse;
  planUpdate(req: UpdateRequest<K, L>): WritesResponse;
  planDelete(req: DeleteRequest): WritesResponse;
}
