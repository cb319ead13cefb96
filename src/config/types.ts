/**
 * The desired state: what a configuration folder asks for, after variables are
 * interpolated, defaults filled and references checked. It is what the planner
 * compares with live state. It never holds a secret: write-only inputs are kept
 * as references to their sources and resolved only when a write needs them.
 */

import type { ResourceKind, SecretSource, SourceRange } from '../plan-model/kind.js';
import type { StepClass, VariableValue } from '../plan-model/plan.js';

export type { ResourceKind, SecretSource, SourceRange };

export interface Lifecycle {
  preventDestroy: boolean;
  /** Paths as the plan shows them (`description`, `settings.requestsPerMinute`, `headers.Authorization`) that are never diffed; an attribute covers the paths inside it. */
  ignoreChanges: string[];
}

/** Attribute values of a desired resource by name; each kind's definition (src/providers/) gives their exact type. */
export type Attributes = Record<string, unknown>;

/** A user or group of the configuration's `directory:` (config/blocks/directory.ts). */
export interface DirectoryPrincipal {
  id: string;
  /** Base64 of the 32-byte X25519 public key, as written. */
  publicKey: string;
  /** Where the entry is declared (its name), so a command can point at it. */
  source?: SourceRange;
  /** A group's `members` (names in `directory.users`), each where it is written: what `cplane access offboard` reads. */
  members?: { user: string; source: SourceRange }[];
}

/**
 * A Service Account's key pinned in the repository (`directory.serviceAccounts.NAME.keyId`), as SOPS keeps its
 * recipients: a record is only ever wrapped for a key whose id is the pin, whatever the API lists.
 */
export interface ServiceAccountPin {
  keyId: string;
  /** Where the pin is written, so a mismatch points at it. */
  source: SourceRange;
}

/** The configuration's `directory:`: principals no API operation lists, by name, and pinned Service Account keys. */
export interface Directory {
  users: Record<string, DirectoryPrincipal>;
  groups: Record<string, DirectoryPrincipal>;
  roles: Record<string, { id: string }>;
  serviceAccounts: Record<string, ServiceAccountPin>;
}

/** The sections of `directory:` that declare principals other configuration names (the pins are read by grants only). */
export type DirectorySection = 'users' | 'groups' | 'roles';

export interface DesiredResource<A extends object = Attributes> {
  kind: ResourceKind;
  /** The resource's address (plan-model/address.ts): `KIND.NAME`, and for a kind declared inside another, `KIND.PARENT/NAME`. */
  address: string;
  /** The key the resource has in its YAML map (for a record or token: its own key, not the parent's). */
  localName: string;
  attributes: A;
  /**
   * Write-only inputs by field: `secret` (credential), `value` (record),
   * `headers.<Name>` (otel_export). Resolved only at apply time.
   */
  secrets: Record<string, SecretSource>;
  lifecycle: Lifecycle;
  /** Addresses this resource needs to exist first. */
  dependsOn: string[];
  source: SourceRange;
  /** Where the value of each field of the entry is (`serviceAccount`), for problems about one value; absent fields point at `source`. */
  fieldRanges?: Record<string, SourceRange>;
}

/**
 * The refactoring blocks of the configuration (`moved`, `removed`, `import`), checked against the configuration;
 * the planner resolves them against state before diffing (planner/stages/refactoring.ts).
 */
export interface RefactoringBlocks {
  /** In file order; chains (`a -> b`, `b -> c`) are allowed, cycles are not. */
  moved: { from: string; to: string; source: SourceRange }[];
  removed: { from: string; source: SourceRange }[];
  imports: { to: string; id: string; source: SourceRange }[];
}

/**
 * A policy of the configuration (`policies:`), checked against every plan (src/policy/). The rule is CEL
 * text: the configuration only carries it; compiling and evaluating it is the policy layer's job.
 */
export interface Policy {
  name: string;
  level: 'mandatory' | 'advisory';
  /** Kinds the rule applies to; empty for every kind. */
  kinds: ResourceKind[];
  /** Plan actions the rule applies to; empty for every action that leaves the object in place (not a removal). */
  actions: string[];
  rule: string;
  /** What a violation says; the rule itself when the configuration gives none. */
  message: string;
  /** How long the rule may take over one plan, when the configuration lowers the default (docs/policies.md). */
  timeoutMs?: number;
  /** Where the rule's text starts, so an error in it points at its line. */
  source: SourceRange;
}

export interface DesiredState {
  /** Account id from the configuration (after interpolation), if it gives one. */
  account?: string;
  /** `state: { url }` of the configuration, interpolated. May hold a password: print it only masked. */
  stateUrl?: string;
  resources: DesiredResource[];
  /** `moved`, `removed` and `import` blocks; absent when the configuration has none. */
  refactoring?: RefactoringBlocks;
  /** `policies:` by name, in name order; absent when the configuration has none. */
  policies?: Policy[];
  /** `directory:` users, groups and roles by name (config/blocks/directory.ts); absent when the configuration has none. */
  directory?: Directory;
  /** `reconcile:` (config/blocks/reconcile.ts); absent when the configuration has none. */
  reconcile?: ReconcileSettings;
  /** The configuration folder (absolute). */
  dir: string;
  /** Files read, relative to `dir`, sorted. */
  files: string[];
  /** The variable values the configuration was loaded with (a saved plan keeps them; secrets never are variables). */
  variables: Record<string, VariableValue>;
}

/** `reconcile:`: the step classes `cplane reconcile` applies on its own. */
export interface ReconcileSettings {
  autoApply: StepClass[];
  source: SourceRange;
}

export type Severity = 'error' | 'warning';

/** One problem found in configuration, with where it is (after tfdiags). */
export interface Diagnostic {
  severity: Severity;
  /** Stable code, e.g. `yaml_syntax`, `unknown_key`, `unknown_reference`. Tests assert on it. */
  code: string;
  summary: string;
  detail?: string;
  range?: SourceRange;
  /** The offending source line and a caret line under it, ready to print. */
  snippet?: string;
}
