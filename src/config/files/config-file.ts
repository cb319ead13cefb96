/**
 * The TypeScript shape of one configuration file, as schema/config.schema.json describes it, except the
 * kinds' entries: each kind's entry type lives with its definition in src/providers/ (config/ never names a
 * kind). test/config/schema-types.test.ts keeps the types and the schema in agreement.
 */
import type { StepClass } from '../../plan-model/plan.js';
import type { ResourceKind } from '../types.js';

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

/** `moved`: the object at `from` in state is now configured at `to` (after Terraform's `moved` block). */
export interface MovedConfig {
  from: string;
  to: string;
}

/** `removed`: cplane stops managing the object at `from` (and what lives under it) without touching it remotely. */
export interface RemovedConfig {
  from: string;
}

/**
 * `forEach` (config/values/for-each.ts), on any resource entry held by name and on an `import` block: a map, a list,
 * or `${var.NAME}` of one. The entry is a template declared once per key; the loader expands it before the
 * kinds read their entries, so no entry type carries it.
 */
export type ForEach = Record<string, unknown> | unknown[] | string;

/** `import`: the configured address `to` adopts the existing remote object `id`. */
export interface ImportConfig {
  forEach?: ForEach;
  to: string;
  id: string;
}

/** A policy (docs/policies.md): a CEL rule every planned change of the given kinds must satisfy. */
export interface PolicyConfig {
  level: 'mandatory' | 'advisory';
  /** Kind names; the schema lists the kinds the registry defines. */
  kinds?: ResourceKind[];
  actions?: ('create' | 'update' | 'replace' | 'renew' | 'rotate' | 'import' | 'move' | 'forget' | 'archive' | 'delete' | 'revoke')[];
  rule: string;
  message?: string;
  timeoutMs?: number;
}

/** One use of a module (an entry of `modules`): its folder, and the values of its variables by name. */
export interface ModuleCallConfig {
  source: string;
  /** A list or a map only for a variable declared with `type: list` or `type: map`. */
  inputs?: Record<string, string | number | boolean | unknown[] | Record<string, unknown>>;
}

/** `directory:` (config/blocks/directory.ts): principals no operation lists, by name. */
export interface DirectoryConfig {
  users?: Record<string, { id: string; publicKey: string }>;
  /** `members`: the users (names of `users`) in the group, for `cplane access offboard`; no operation lists them. */
  groups?: Record<string, { id: string; publicKey: string; members?: string[] }>;
  roles?: Record<string, { id: string }>;
  serviceAccounts?: Record<string, { keyId: string }>;
}

/** One deployment: written literally (never interpolated). */
export interface DeploymentConfig {
  account: string;
  workspace?: string;
  variables?: Record<string, string | number | boolean | unknown[] | Record<string, unknown>>;
  varFiles?: string[];
  after?: string[];
  /** The token it uses, by name: CPLANE_TOKEN_<NAME>, read instead of CPLANE_TOKEN (token-binding.ts). */
  token?: string;
  /** The address its token must be bound to: a check, never where a token is sent. */
  baseUrl?: string;
  /** Its GitHub environment (default: its name), as `cplane deployments --matrix` gives it to a CI job. */
  environment?: string;
  autoApprove?: string;
}

export interface ConfigFile {
  version?: 1;
  account?: string;
  /** `state: { url }`: the state's location, after interpolation (may hold a password). */
  state?: { url: string };
  variables?: Record<string, VariableConfig>;
  moved?: MovedConfig[];
  removed?: RemovedConfig[];
  import?: ImportConfig[];
  policies?: Record<string, PolicyConfig>;
  modules?: Record<string, ModuleCallConfig>;
  directory?: DirectoryConfig;
  /** `deployments:` (config/blocks/deployments.ts): the accounts the configuration is applied to, by name. */
  deployments?: Record<string, DeploymentConfig>;
  /** `reconcile:` (config/blocks/reconcile.ts): the step classes `cplane reconcile` applies. */
  reconcile?: { autoApply?: StepClass[] };
  /** `defaults:` by the key entries sit under (`tokens`): field -> value (defaults.ts). */
  defaults?: Record<string, Record<string, unknown>>;
  /** The entries of the top-level kinds, under each kind block's `key` (their types are in src/providers/). */
  [kindKey: string]: unknown;
}
