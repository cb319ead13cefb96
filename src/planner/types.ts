/**
 * A plan: plain, serialisable data that says exactly which writes an apply
 * will send, in which order, and why. The planner makes it, render/ shows it,
 * the applier performs it. The applier never knows a resource kind: everything
 * it needs is in the steps below (operations, body templates, and what to record
 * in state when a write succeeds). `schema/plan.schema.json` is its JSON form.
 */
import type { OperationName } from '../api/operations.js';
import type { ResourceKind, SecretSource } from '../config/types.js';

export type Action = 'create' | 'update' | 'replace' | 'rotate' | 'import' | 'archive' | 'delete' | 'revoke' | 'no-op';

/**
 * A JSON value in which some objects are placeholders, resolved by the applier
 * just before the write is sent:
 * - `{ "$ref": ADDRESS }`: the remote id of ADDRESS, read from state (it may have been created earlier in this apply);
 * - `{ "$secret": FIELD }`: the plaintext of the step's write-only FIELD, read from its source in `PlanStep.secrets`;
 * - `{ "$encrypt": FIELD }`: the same plaintext, encrypted on the client into an EncryptedValue (record values).
 * Anything else is sent as it is.
 */
export type Template = null | boolean | number | string | Template[] | { [key: string]: Template };

export interface RefPlaceholder {
  $ref: string;
}

/** What the applier records in state when one write succeeds. */
export interface WriteEffects {
  /** Where the remote id of the step's address comes from: a dotted path into the result, or another address's id. */
  id?: { result: string } | RefPlaceholder;
  /** Parent ids to record (e.g. `{ gatewayId: { $ref: 'gateway.prod' } }`). */
  parents?: Record<string, RefPlaceholder | string>;
  /** One-time secret in the result to seal into state, e.g. `{ name: 'plaintext', result: 'plaintext' }`. */
  seal?: { name: string; result: string };
  /** Non-secret values of the answer to keep in state as `outputs`: name -> dotted path (e.g. `{ tokenPrefix: 'token_prefix' }`). */
  outputs?: Record<string, string>;
  /** The remote object is gone (deleted, archived, revoked): remove the address from state. */
  forget?: boolean;
}

export interface PlannedWrite {
  /** Unique in the plan: `${stepId}#${index}`. */
  id: string;
  operation: OperationName;
  /** Path parameters (templates: usually a `$ref` or a literal id). */
  path: Record<string, Template>;
  body?: Template;
  /** Made at plan time and saved with the plan, so applying the same plan twice writes once. */
  idempotencyKey: string;
  effects: WriteEffects;
  /** One line for people: `POST /projects (create project payments-staging)`. */
  summary: string;
}

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
  /** Unique in the plan; usually the address, with a suffix when one address has several steps. */
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
}

/** A configuration file and the sha256 of its content, so an apply can name the files that changed. */
export interface PlannedFile {
  /** Relative to the configuration folder, with `/` separators. */
  path: string;
  sha256: string;
}

/**
 * Where and for whom a plan was made: enough for `cplane apply PLANFILE` to run in another
 * checkout, at another path, in another job. It never holds a secret: variable values are the
 * non-secret ones (secrets have their own sources, read at apply), and a state URL has no password.
 */
export interface PlanContext {
  workspace: string;
  /** The account's name as `GET /accounts` gives it; null when the token may not list accounts. */
  accountName: string | null;
  /** Configuration folder relative to the working folder of the plan (`/` separators). */
  configDir: string;
  files: PlannedFile[];
  /** Resolved variable values the configuration was planned with. */
  variables: Record<string, string | number | boolean>;
  /** The state the plan was made against: a file relative to the configuration folder (or absolute), or a URL without credentials. */
  state: { path: string } | { url: string };
}

export interface Plan {
  formatVersion: 2;
  cplaneVersion: string;
  createdAt: string;
  /** Account id the plan is for. */
  account: string;
  /** Set by the command that made the plan; always present in a saved plan and in `plan --json`. */
  context?: PlanContext;
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
