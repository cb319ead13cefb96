/**
 * The TypeScript shape of one configuration file, as schema/config.schema.json
 * describes it. test/config/schema-types.test.ts keeps the two in agreement.
 */
import type { GatewaySettingsConfig, ResourceKind, SecretSource } from './types.js';

/** Paths inside a gateway's settings that `ignoreChanges` may name (as the plan shows them). */
export type GatewaySettingsPath =
  | 'settings.requestsPerMinute' | 'settings.tokensPerMinute' | 'settings.spendLimitUsd' | 'settings.window'
  | 'settings.guardrails' | 'settings.guardrails.blockPii' | 'settings.guardrails.blockedTerms' | 'settings.guardrails.maxInputTokens'
  | 'settings.cache' | 'settings.cache.enabled' | 'settings.cache.ttlSeconds';

export interface LifecycleConfig<Field extends string> {
  preventDestroy?: boolean;
  ignoreChanges?: Field[];
}

export interface VariableConfig {
  description?: string;
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'list' | 'map';
  /** A list or a map only with `type: list` or `type: map`. */
  default?: string | number | boolean | unknown[] | Record<string, unknown>;
}

export interface RecordConfig {
  name?: string;
  format?: string;
  tags?: string[];
  secretDueAt?: string | null;
  rotationIntervalDays?: number | null;
  value?: SecretSource;
  lifecycle?: LifecycleConfig<'name' | 'format' | 'tags' | 'secretDueAt' | 'rotationIntervalDays' | 'value'>;
  dependsOn?: string[];
}

export interface ProjectConfig {
  name?: string;
  description?: string;
  active?: boolean;
  records?: Record<string, RecordConfig>;
  lifecycle?: LifecycleConfig<'name' | 'description' | 'active'>;
  dependsOn?: string[];
}

export interface CredentialConfig {
  provider: string;
  label?: string;
  baseUrl?: string | null;
  secret: SecretSource;
  lifecycle?: LifecycleConfig<'provider' | 'label' | 'baseUrl' | 'secret'>;
  dependsOn?: string[];
}

export interface OtelExportConfig {
  enabled?: boolean;
  endpoint?: string | null;
  exportMetrics?: boolean;
  exportTraces?: boolean;
  headers?: Record<string, SecretSource>;
  lifecycle?: LifecycleConfig<'enabled' | 'endpoint' | 'exportMetrics' | 'exportTraces' | 'headers' | `headers.${string}`>;
  dependsOn?: string[];
}

export interface TokenConfig {
  name?: string;
  scopes: string[];
  expiresInDays?: number | null;
  allowedModels?: string[];
  rateLimitPerMin?: number | null;
  lifecycle?: LifecycleConfig<'name' | 'scopes' | 'expiresInDays' | 'allowedModels' | 'rateLimitPerMin'>;
  dependsOn?: string[];
}

export interface GatewayConfig {
  project: string;
  name?: string;
  slug?: string;
  defaultProvider?: string;
  defaultModel: string;
  credentials: string[];
  settings?: GatewaySettingsConfig;
  otelExport?: OtelExportConfig;
  tokens?: Record<string, TokenConfig>;
  lifecycle?: LifecycleConfig<'name' | 'slug' | 'defaultProvider' | 'defaultModel' | 'credentials' | 'settings' | GatewaySettingsPath>;
  dependsOn?: string[];
}

/** `moved`: the object at `from` in state is now configured at `to` (after Terraform's `moved` block). */
export interface MovedConfig {
  from: string;
  to: string;
}

/** `removed`: cplane stops managing the object at `from` (and what lives under it) without touching it remotely. */
export interface RemovedConfig {
  from: string;
}

/** `import`: the configured address `to` adopts the existing remote object `id`. */
export interface ImportConfig {
  to: string;
  id: string;
}

/** A policy (docs/policies.md): a CEL rule every planned change of the given kinds must satisfy. */
export interface PolicyConfig {
  level: 'mandatory' | 'advisory';
  /** Kind names; the schema lists the kinds the registry defines. */
  kinds?: ResourceKind[];
  actions?: ('create' | 'update' | 'replace' | 'rotate' | 'import' | 'move' | 'forget' | 'archive' | 'delete' | 'revoke')[];
  rule: string;
  message?: string;
}

export interface ConfigFile {
  version?: 1;
  account?: string;
  /** `state: { url }`: the state's location, after interpolation (may hold a password). */
  state?: { url: string };
  variables?: Record<string, VariableConfig>;
  projects?: Record<string, ProjectConfig>;
  credentials?: Record<string, CredentialConfig>;
  gateways?: Record<string, GatewayConfig>;
  moved?: MovedConfig[];
  removed?: RemovedConfig[];
  import?: ImportConfig[];
  policies?: Record<string, PolicyConfig>;
}
