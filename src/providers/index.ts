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
import type { ResourceProvider } from './types.js';

export const providers: { [K in ResourceKind]: ResourceProvider<K, never> } = {
  project: projectProvider as never,
  record: recordProvider as never,
  credential: credentialProvider as never,
  gateway: gatewayProvider as never,
  gateway_token: gatewayTokenProvider as never,
  otel_export: otelExportProvider as never,
};

/** Kinds in dependency order: parents before children. */
export const kindOrder: ResourceKind[] = ['project', 'credential', 'record', 'gateway', 'gateway_token', 'otel_export'];

export { projectProvider, recordProvider, credentialProvider, gatewayProvider, gatewayTokenProvider, otelExportProvider };
export { listAccounts, listProviders, findProvider } from './lookups.js';
export type { LiveOtelExport } from './otel-export.js';
export type * from './types.js';
