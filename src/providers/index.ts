/**
 * One provider per resource kind, all behind the ResourceProvider interface.
 * The planner looks providers up here by kind and knows nothing else about them.
 */
import type { ResourceKind } from '../config/types.js';
import { credentialProvider } from './credential.js';
import { gatewayTokenProvider } from './gateway-token.js';
import { gatewayProvider } from './gateway.js';
import { otelExportProvider } from './otel-export.js';
import { projectProvider } from './project.js';
import { recordProvider } from './record.js';
import type { Relations, ResourceProvider } from './types.js';

const providers = {
  project: projectProvider,
  record: recordProvider,
  credential: credentialProvider,
  gateway: gatewayProvider,
  gateway_token: gatewayTokenProvider,
  otel_export: otelExportProvider,
} satisfies { [K in ResourceKind]: { kind: K } };

/**
 * The provider of a kind. Each provider is typed with its own live shape; callers that work on any kind see
 * the live object as `unknown`, and this lookup holds the one cast between the two views.
 */
export function providerFor<K extends ResourceKind>(kind: K): ResourceProvider<K, unknown> {
  return providers[kind] as unknown as ResourceProvider<K, unknown>;
}

/** The parent a kind lives under (`relations.within`) with the parent's kind; undefined for a kind read per account. */
export function parentOf(kind: ResourceKind): (NonNullable<Relations['within']> & { kind: ResourceKind }) | undefined {
  const { within, parentIds } = providerFor(kind).relations;
  const parentKind = within && parentIds?.[within.idField];
  return within && parentKind ? { ...within, kind: parentKind } : undefined;
}

/** The kinds that live under `kind` (their `relations.within` names it). */
export function childKindsOf(kind: ResourceKind): ResourceKind[] {
  return kindOrder.filter((child) => parentOf(child)?.kind === kind);
}

/** Kinds in dependency order: parents before children. */
export const kindOrder: ResourceKind[] = ['project', 'credential', 'record', 'gateway', 'gateway_token', 'otel_export'];

export { projectProvider, recordProvider, credentialProvider, gatewayProvider, gatewayTokenProvider, otelExportProvider };
export { listAccounts, listVendors, findVendor } from './lookups.js';
export type { LiveOtelExport } from './otel-export.js';
export type * from './types.js';
