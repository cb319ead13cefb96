/**
 * A plan: plain, serialisable data (the plan model, on the ground floor:
 * state/, providers/, planner/, applier/ and render/ all import it) that says exactly which writes an apply
 * will send, in which order, and why. The planner makes it, render/ shows it,
 * the applier performs it. The applier never knows a resource kind: everything
 * it needs is in the steps below (operations, body templates, and what to record
 * in state when a write succeeds). `schema/plan.schema.json` is its JSON form.
 */
import type { OperationName } from '../api/operations.js';
import type { ResourceKind, SecretSource } from '../config/types.js';
import type { Action } from './action.js';
import type { PlannedWrite } from './write.js';

export interface FieldChange {
  /** Attribute path as in configuration, e.g. `description`, `settings.cache.ttlSeconds`. */
  path: string;
  /** Absent on create. Write-only values are never here: see `sensitive`. */
  before?: unknown;
  /** Absent on delete. */
  after?: unknown;
  /** A write-only value: rendered as `(sensitive)`, compared by fingerprint. */
  sensitive?: boolean;
  /** This change is why the step is a replace. */
  forcesReplace?: boolean;
}

export interface PlanStep {
  /** Unique in the plan: the step's address (one address has at most one step; a replace is one step with several writes). */
  id: string;
  address: string;
  kind: ResourceKind;
  action: Action;
  /** Why, for people only (the applier never branches on it): `created outside cplane: adopting`, `deleted outside cplane`. */
  reason?: string;
  changes: FieldChange[];
  /** Ids of steps that must complete first. */
  dependsOn: string[];
  /** For `import` (and import-then-update): the live object taken under management before any write. */
  adopt?: { id: string; parents?: Record<string, string> };
  writes: PlannedWrite[];
  /** Non-secret inputs recorded in state when the step completes. */
  inputs?: Record<string, unknown>;
  /** Sources of the write-only values the writes use (`$secret`/`$encrypt` fields). References only, never values. */
  secrets?: Record<string, SecretSource>;
  /** A `moved` block: the state entry recorded at `from` is renamed to this address before any write. */
  moved?: { from: string };
  /** Remove the address from state when the step completes (also set on the last write's effects). */
  forget?: boolean;
  /** Consequences people must know, e.g. `deleting the gateway revokes its 2 tokens`. */
  notes?: string[];
}

/** A difference between live state and what cplane last applied, found by refresh. */
export interface Drift {
  address: string;
  kind: ResourceKind;
  /** `changed` field by field, or `deleted` outside cplane. */
  type: 'changed' | 'deleted';
  /** For `deleted`, how people say it: `revoked outside cplane` for a token (default `deleted outside cplane`). */
  reason?: string;
  changes: FieldChange[];
}

/** A resource the token could not read (e.g. a Service Account on a human-only list). */
export interface Unreadable {
  address?: string;
  kind: ResourceKind;
  operation: OperationName;
  reason: string;
  requestId?: string;
}

export interface PlanSummary {
  add: number;
  change: number;
  replace: number;
  remove: number;
  import: number;
  /** Addresses renamed by `moved` blocks (a move with changes also counts in its other column). */
  move: number;
  /** Addresses `removed` blocks stop managing, without a write. */
  forget: number;
}

export interface Plan {
  formatVersion: 1;
  cplaneVersion: string;
  createdAt: string;
  account: string;
  /** Absolute configuration folder the plan was made from. */
  configDir: string;
  mode: 'normal' | 'destroy' | 'refresh-only';
  targets: string[];
  /** In dependency order: every step comes after the steps it depends on. */
  steps: PlanStep[];
  drift: Drift[];
  unreadable: Unreadable[];
  summary: PlanSummary;
  /** sha256 digests to detect, at apply, a configuration or live state that changed since the plan was made. */
  digest: { config: string; live: string };
}
