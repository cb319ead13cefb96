/**
 * A plan: plain, serialisable data (the plan model, on the ground floor:
 * state/, providers/, planner/, applier/ and render/ all import it) that says exactly which writes an apply
 * will send, in which order, and why. The planner makes it, render/ shows it,
 * the applier performs it. The applier never knows a resource kind: everything
 * it needs is in the steps below (operations, body templates, and what to record
 * in state when a write succeeds). `schema/plan.schema.json` is its JSON form.
 */
import type { OperationName } from '../api/operations.js';
import type { ResourceKind, SecretSource, SourceRange } from './kind.js';
import type { Action } from './action.js';
import type { PlannedWrite } from './write.js';
import type { Notice } from './notice.js';

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
  /** For people, shown after the value: `expired 2 days ago`, `rotate: due 3 days ago`. Never compared. */
  note?: string;
  /** Why this change exists when the configuration is not why (a renewal, a rotation due, a grant made outside cplane). */
  cause?: StepCause;
}

/**
 * Why a step exists, as data: what a scheduled `cplane reconcile` sorts steps by. planner/step-class.ts holds
 * the one table from a cause to its class.
 */
export type StepCause =
  | 'configuration'
  | 'replace-requested'
  | 'deleted-outside'
  | 'changed-outside'
  | 'granted-outside'
  | 'expired'
  | 'renewal'
  | 'overlap-ended'
  | 'rotation-due'
  | 'grant-expired'
  | 'delivery'
  /** The key a reader's grant is wrapped for changed (a pin, a directory key, or the key the API offers). */
  | 'reader-key-changed'
  /**
   * The step wraps a data key for a reader key the API offered that neither state (the key the grant was last
   * wrapped for) nor the repository (a pin, a directory key) vouches for: only a person may apply it.
   */
  | 'reader-key-offered';

/** `maintenance`: what time makes due; `drift`: putting back what was changed outside cplane; `change`: what the configuration asks for. */
export type StepClass = 'maintenance' | 'drift' | 'change';

export interface PlanStep {
  /** Unique in the plan, and what identifies the step (one address has at most one step; a replace is one step with several writes). */
  address: string;
  kind: ResourceKind;
  action: Action;
  /** Why, for people only (the applier never branches on it): `created outside cplane: adopting`, `deleted outside cplane`. */
  reason?: string;
  changes: FieldChange[];
  /** Addresses of the steps that must complete first. */
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
  /**
   * Why the step is there, as stable codes a program reads (a scheduler sorting steps into classes), beside
   * `reason`, which is for people. Every step the planner makes has them (absent in plans of older versions).
   */
  causes?: StepCause[];
  /** The class its causes give it (planner/step-class.ts): the strictest of them. */
  class?: StepClass;
}

/**
 * The API's clock and this machine's, when more than 5 minutes apart (planner/stages/clocks.ts): a warning, since what
 * ends access was decided by the earlier deadline of the two. ISO times, read when the plan was made.
 */
export interface ClockSkew {
  api: string;
  machine: string;
}

/** A grant configured with `until` that ends within 7 days of the API's clock: said, though not a change yet. */
export interface EndingGrant {
  address: string;
  kind: ResourceKind;
  /** ISO time, from the configuration. */
  until: string;
  /** `in 3 days`, measured on the API's clock when the plan was made. */
  left: string;
  reason?: string;
}

/** A difference between live state and what cplane last applied, found by refresh. */
export interface Drift {
  address: string;
  kind: ResourceKind;
  /** `changed` field by field, or `deleted` outside cplane. */
  type: 'changed' | 'deleted';
  /** How people say it: `revoked outside cplane` for a deleted token (default `deleted outside cplane`), `expired 2 days ago`. */
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

/** One policy's verdict on one planned change that is not a pass (docs/policies.md). */
export interface PolicyFinding {
  policy: string;
  level: 'mandatory' | 'advisory';
  address: string;
  kind: ResourceKind;
  /** `violated`: the rule was false. `error`: it could not be evaluated, which counts as a violation of its level. */
  outcome: 'violated' | 'error';
  /** The policy's message; for an error, why the rule could not be evaluated. */
  message: string;
  /** Where the resource is configured (absent for the removal of one no longer configured): annotations point here. */
  at?: SourceRange;
}

/** What the configuration's policies said of a plan. */
export interface PolicyReport {
  /** sha256 of the policies checked (name, level, kinds, rule, message): a saved plan made under other policies is refused. */
  digest: string;
  /** Number of policies in the configuration. */
  policies: number;
  /** Evaluations made: one per policy and planned change of a kind it applies to. */
  checked: number;
  /** Every result that is not a pass, by address then policy. */
  findings: PolicyFinding[];
}

/**
 * A configured address of a kind no operation reads back (known only from state, e.g. a project's group role):
 * the plan compared it with what cplane last applied, and cannot tell whether it still holds on the account.
 */
export interface NotVerifiable {
  address: string;
  kind: ResourceKind;
}

/** A write-only value a refresh-only plan did not check because its source is absent (it never reads one). */
export interface NotChecked {
  address: string;
  /** `headers.Authorization`, `secret`, `value`. */
  field: string;
  /** `OTEL_TEAM not set`, `file /path not found`. */
  reason: string;
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
/** A CI run: its id (the same in every job of it) and, when known, the commit it runs. */
export interface PlanRun {
  id: string;
  commit?: string;
}

export interface PlanOrigin {
  workspace: string;
  /** The deployment of the configuration's `deployments:` the plan is for; absent without deployments. */
  deployment?: string;
  /**
   * Every deployment the run that saved it chose (`plan --all`, or `access offboard --all --out DIR`; declaration order, after --deployment and --changed, before
   * --shard), of which this plan is one: `plan --merge` checks that each has exactly one plan, and `apply DIR`
   * refuses a folder that lacks one (a deleted plan would skip its `after` gate).
   */
  fleet?: string[];
  /** The CI run that saved it (`--run`, or GITHUB_RUN_ID and GITHUB_SHA): `plan --merge` takes the shards of one run only. */
  run?: PlanRun;
  /** The pull request the plan was made for and its head commit (`--pr`, `--commit`, or the GitHub event): registered with the state (docs/state.md). */
  pullRequest?: { number: number; commit: string };
  /** The account's name as `GET /accounts` gives it; null when the token may not list accounts. */
  accountName: string | null;
  /** Configuration folder relative to the working folder of the plan (`/` separators). */
  configDir: string;
  files: PlannedFile[];
  /** Resolved variable values the configuration was planned with. */
  variables: Record<string, VariableValue>;
  /** The state the plan was made against: a file relative to the configuration folder (or absolute), or a URL without credentials. */
  state: { path: string } | { url: string };
}

/** The plan format this cplane writes and reads (schema/plan.schema.json's `formatVersion`). */
export const PLAN_FORMAT_VERSION = 4;

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  cplaneVersion: string;
  createdAt: string;
  /** Account id the plan is for. */
  account: string;
  /** Set by the command that made the plan; always present in a saved plan and in `plan --json`. */
  origin?: PlanOrigin;
  mode: 'normal' | 'destroy' | 'refresh-only';
  targets: string[];
  /** `--exclude` addresses (absent when none): planned is everything but these and what needs them. */
  exclude?: string[];
  /** `--replace` addresses (absent when none): re-issued even though nothing else changed. */
  replace?: string[];
  /** In dependency order: every step comes after the steps it depends on. */
  steps: PlanStep[];
  drift: Drift[];
  unreadable: Unreadable[];
  /**
   * What the plan says beside its steps (records without a value, grants ending soon, spend warnings, what is due…),
   * one list made by the table of planner/checks/notices.ts: plan-model/notice.ts. Plans of format 3 had a field
   * per kind of notice instead; they are read into this list (saved-plan/read.ts).
   */
  notices: Notice[];
  summary: PlanSummary;
  /** Present when the configuration has policies (every mode but refresh-only, which plans no change). */
  policies?: PolicyReport;
  /** `cplane reconcile`: the steps of classes it does not apply, and those left out because they need one. */
  withheld?: WithheldStep[];
  /**
   * Writes an earlier apply saved in the journal and whose answer it never recorded (it was killed): an apply
   * resends them first, with their saved keys. The plan has no step for these addresses; it shows what
   * they will become.
   */
  pendingWrites?: PendingWrite[];
  /** What the plan does to spend (docs/insight.md); absent when no step touches a spend limit, a rate limit or allowed models. */
  spend?: PlanSpend;
  /**
   * `cplane access offboard USER`: whose access the plan takes away, and what it rotates (docs/access.md). Apply
   * plans again from the configuration without the user's shares and with `replace`; absent in every other plan.
   */
  offboard?: Offboarding;
  /**
   * Set in a saved plan file only: the MAC of the whole plan under a key derived from the state key
   * (saved-plan/mac.ts), and the scrypt parameters when that key comes from CPLANE_PASSPHRASE.
   */
  auth?: { mac: string; kdf?: { name: 'scrypt'; salt: string; N: number; r: number; p: number } };
}

/** An old object kept working beside its renewed successor until `revocableAt` (ISO time, the API's clock). */
export interface SupersededWait {
  address: string;
  kind: ResourceKind;
  id: string;
  /** Non-secret outputs the old object had (a token's `tokenPrefix`), to recognise it. */
  outputs?: Record<string, string>;
  revocableAt: string;
}

/** One thing time made due at an address. */
export interface DueItem {
  address: string;
  kind: ResourceKind;
  cause: StepCause;
  /** For people: `renew: expires in 1 day`, `rotate: due 3 days ago`. */
  note?: string;
}

/** A step a reconcile did not apply: of a class it may not apply, or needing one that is. */
export interface WithheldStep {
  address: string;
  kind: ResourceKind;
  action: Action;
  class: StepClass;
  reason?: string;
  /** Set when the step's own class is allowed: the withheld addresses it needs. */
  needs?: string[];
}

export interface PendingWrite {
  address: string;
  kind: ResourceKind;
  operation: OperationName;
  /** What the address becomes once the write is resent: a new object, a changed one, or none. */
  becomes: 'created' | 'updated' | 'removed';
  /** When the write was first saved (ISO time). */
  savedAt: string;
}

/** A variable's value: a scalar, or with `type: list` / `type: map` a JSON value (a `forEach` runs over it). */
export type VariableValue = string | number | boolean | null | VariableValue[] | { [key: string]: VariableValue };

/** A window a spend limit counts in: the gateway's `minute`..`month`, the token's `daily`..`monthly` as `day`..`month`. */
export type SpendWindow = 'minute' | 'hour' | 'day' | 'week' | 'month';

/** A spend limit as configured: dollars per window. */
export interface SpendLimit {
  /** Dollars as a decimal string (`"40.00"`). */
  usd: string;
  window: SpendWindow;
}

/** One side (before or after the plan) of an object's limit. */
export interface SpendSide {
  /** Null: no limit. */
  limit: SpendLimit | null;
  /** The limit normalised to 30 days (a day 30 times, a week 30/7, a month once), dollars with two decimals; null: no limit. */
  per30d: string | null;
}

/** What was spent through one gateway or token, from GET /usage/metrics: the last 7 and 30 days (UTC days, today included). */
export interface UsageFigures {
  spend7d: string;
  requests7d: number;
  spend30d: string;
  requests30d: number;
  /** Spent in the window of the limit now running (today, this week, this month; UTC), when the limit has one the usage can tell. */
  spendInWindow?: string;
}

/** A gateway or token whose spend the plan touches. */
export interface SpendEntry {
  address: string;
  kind: ResourceKind;
  /** Null: it does not exist before the plan (created). */
  before: SpendSide | null;
  /** Null: the plan removes it. */
  after: SpendSide | null;
  /** Absent when it has no usage yet (created here) or the usage could not be read. */
  usage?: UsageFigures;
}

/** A gateway whose spend the plan touches: its own limit, the sum of its tokens' limits, and what that authorises. */
export interface GatewaySpend extends SpendEntry {
  /** The sum of its tokens' limits per 30 days, every token counted (null: one has no limit; "0.00" without tokens). */
  tokensBefore: string | null;
  tokensAfter: string | null;
  /** Maximum authorised per 30 days: the smaller of its own limit and its tokens' sum (null: unlimited). */
  maxBefore: string | null;
  maxAfter: string | null;
  /** Its tokens that the plan touches. */
  tokens: SpendEntry[];
}

/** A warning of the spend check, which becomes a notice of code `spend` (plan format 3 had them in `spend.warnings`). */
export interface SpendWarning {
  /** `limit_below_spend`, `model_with_traffic_removed`, `token_without_limit`, `tokens_oversubscribe_gateway`. */
  code: string;
  address: string;
  message: string;
  at?: SourceRange;
}

/** Spend in a plan: every gateway touched, and the maximum authorised over all of them. */
export interface PlanSpend {
  /** Maximum authorised per 30 days over the gateways below (dollars; null: unlimited). */
  before: string | null;
  after: string | null;
  /** after - before; null when either is unlimited. */
  delta: string | null;
  gateways: GatewaySpend[];
  /** Why the usage could not be read ("spend not read"); everything else in the plan is complete. */
  usageNotRead?: string;
  /** Usage reads sent: one per gateway that exists and whose spend the plan touches. */
  usageReads: number;
}

/** An offboarding plan's account of one user (`cplane access offboard`): plain data, as the planner found it. */
export interface Offboarding {
  /** The user's name in `directory.users`, and their id. */
  user: string;
  userId: string;
  /** The user's shares the plan revokes (their addresses). */
  revoked: string[];
  /** Every record the user could read, with how, and what happens to its value. */
  records: OffboardedRecord[];
  /** Groups of `directory.groups` that list the user: remove the user from each in the dashboard (no operation does). */
  groups: string[];
  /** Lines of the configuration that name the user, to remove by hand (the command never edits the configuration). */
  lines: { file: string; line: number; col: number; what: string }[];
}

export interface OffboardedRecord {
  address: string;
  /** How the user could read it: `share`, `group platform`, `group platform (role reader on project.shop)`. */
  via: string[];
  /** `rotated`: cplane generates the value and the plan rotates it; `owner`: the value comes from a source, whose owner must give a new one. */
  value: 'rotated' | 'owner';
  /** For `owner`: the source in words (`env DB_PASSWORD`, `file /path`, `delivered from gateway_token.x/y`, `none in the configuration`). */
  source?: string;
}
