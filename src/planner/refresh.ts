/**
 * Refresh: reads the live account with as few requests as the API allows.
 * Account-wide lists (all pages, the largest page size) for projects, records,
 * credentials and gateways, run together; then, per gateway that matters, its
 * tokens and its OTel export, bounded by `--parallelism`. A kind the token may
 * not list (a Service Account on a human-only list) is read by id when the API
 * allows that, and otherwise reported as unreadable: no human-only request is
 * ever sent with a Service Account token.
 */
import type { ApiClient } from '../api/client.js';
import { ApiError, IdentityRefusedError } from '../api/errors.js';
import { isRefusal } from '../providers/view-diff.js';
import { Limiter } from '../api/limiter.js';
import type { OperationName } from '../api/operations.js';
import { routes } from '../api/routes.js';
import type { GatewayT, ProviderT } from '../api/shapes.js';
import type { DesiredState, GatewayAttributes, ResourceKind } from '../config/types.js';
import { listProviders, providers } from '../providers/index.js';
import type { ResourceProvider } from '../providers/types.js';
import type { StateData } from '../state/types.js';
import { digestItems } from './digest.js';
import type { Unreadable } from './types.js';

export interface LiveSnapshot {
  providers: ProviderT[];
  /** Live objects per kind; a kind that could not be read at all is absent. */
  items: Partial<Record<ResourceKind, unknown[]>>;
  /** Kinds read only by id (no list allowed): objects without state cannot be looked up. */
  byIdOnly: Set<ResourceKind>;
  /** Gateways whose tokens or OTel export could not be read, per kind. */
  failedGateways: Partial<Record<ResourceKind, Map<string, Unreadable>>>;
  unreadable: Unreadable[];
  /** Digests of what was read, batch by batch (see digest.ts), for the plan's live digest. */
  digests: Partial<Record<string, string[]>>;
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

export async function refreshLive(input: RefreshInput): Promise<LiveSnapshot> {
  const { client, account, state } = input;
  const limiter = new Limiter(Math.max(1, input.parallelism));
  const snapshot: LiveSnapshot = { providers: [], items: {}, byIdOnly: new Set(), failedGateways: {}, unreadable: [], digests: {} };
  // Each batch is digested as it arrives, while other requests are still in flight.
  const digest = (kind: string, items: unknown[]) => (snapshot.digests[kind] ??= []).push(digestItems(kind, items));
  const stateIds = (kind: ResourceKind) =>
    Object.values(state.resources)
      .filter((r) => r.kind === kind)
      .map((r) => ({ id: r.id, parents: r.parents }));

  const counts = new Map<string, number>();
  for (const entry of Object.values(state.resources)) {
    for (const key of [entry.kind, `${entry.kind}:${entry.parents?.gatewayId}`]) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const expected = (kind: ResourceKind) => (gatewayId?: string) => counts.get(gatewayId === undefined ? kind : `${kind}:${gatewayId}`) ?? 0;

  // A kind neither configured nor in state has nothing to compare: it is not read at all.
  const used = new Set<ResourceKind>([...(input.desired?.resources ?? []).map((r) => r.kind), ...Object.values(state.resources).map((r) => r.kind)]);

  const readKind = async <K extends ResourceKind>(kind: K, gatewayIds: string[]): Promise<void> => {
    if (!used.has(kind)) return;
    const provider = providers[kind] as unknown as ResourceProvider<K, unknown>;
    const blocked = provider.refreshOperations.find((op) => humanOnly(client, op));
    try {
      if (!blocked) {
        const { items, failures } = await provider.refresh({ client, account, gatewayIds, limiter, expected: expected(kind) });
        snapshot.items[kind] = [...(snapshot.items[kind] ?? []), ...items];
        digest(kind, items);
        for (const failure of failures) {
          const unreadable: Unreadable = { kind, operation: failure.operation, reason: failure.reason, ...(failure.requestId ? { requestId: failure.requestId } : {}) };
          const failed = (snapshot.failedGateways[kind] ??= new Map());
          if (failure.gatewayId) failed.set(failure.gatewayId, unreadable);
          snapshot.unreadable.push(unreadable);
        }
      } else if (!humanOnly(client, provider.readOperation)) {
        // Listing is human-only but reading one object is not: read those cplane manages, one by one.
        const found = await Promise.all(stateIds(kind).map(({ id, parents }) => limiter.run(() => provider.read({ client, account, id, parents }))));
        snapshot.items[kind] = found.filter((item) => item !== null);
        digest(kind, snapshot.items[kind]);
        snapshot.byIdOnly.add(kind);
      } else {
        snapshot.unreadable.push({ kind, operation: blocked, reason: 'human-only operation: a Service Account token cannot read it; no request was sent' });
      }
    } catch (error) {
      snapshot.unreadable.push({ kind, operation: error instanceof ApiError ? error.operation : provider.refreshOperations[0] ?? provider.readOperation, ...reasonOf(error) });
    }
  };

  const readProviders = async () => {
    if (!used.has('credential') && !used.has('gateway')) return;
    try {
      snapshot.providers = await listProviders(client);
      digest('providers', snapshot.providers);
    } catch (error) {
      snapshot.unreadable.push({ kind: 'credential', operation: 'listProviders', ...reasonOf(error) });
    }
  };

  // Children of the gateways in state are read at once, alongside the account-wide lists, so that refresh
  // takes one wave of requests; only gateways found for adoption wait for the gateway list.
  const managed = managedGateways(state);
  await Promise.all([
    readProviders(),
    readKind('project', []),
    readKind('record', []),
    readKind('credential', []),
    readKind('gateway', []),
    readKind('gateway_token', managed),
    readKind('otel_export', managed),
  ]);
  const adopting = adoptableGateways(input.desired, snapshot.items.gateway as GatewayT[] | undefined).filter((id) => !managed.includes(id));
  if (adopting.length > 0) await Promise.all([readKind('gateway_token', adopting), readKind('otel_export', adopting)]);
  return snapshot;
}

/** Gateways cplane manages: in state, or parents of tokens and exports in state. */
function managedGateways(state: StateData): string[] {
  const ids = new Set<string>();
  for (const entry of Object.values(state.resources)) {
    if (entry.kind === 'gateway' || entry.kind === 'otel_export') ids.add(entry.id);
    if (entry.parents?.gatewayId) ids.add(entry.parents.gatewayId);
  }
  return [...ids];
}

/** Live, enabled gateways whose slug the configuration claims: their tokens and export may be adopted too. */
function adoptableGateways(desired: DesiredState | undefined, live: GatewayT[] | undefined): string[] {
  const slugs = new Set((desired?.resources ?? []).filter((r) => r.kind === 'gateway').map((r) => (r.attributes as GatewayAttributes).slug));
  return (live ?? []).filter((g) => g.status !== 'disabled' && slugs.has(g.slug)).map((g) => g.gateway_id);
}
