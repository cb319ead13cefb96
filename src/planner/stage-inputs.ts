/**
 * What makePlan takes, what every stage of the step generator reads (the inputs, indexed once)
 * and what a stage returns: its steps, drift, unreadable items and problems,
 * as plain data that make-plan.ts concatenates.
 */
import type { ApiClient } from '../api/client.js';
import type { DesiredResource, DesiredState } from '../config/types.js';
import type { Drift, Plan, PlanStep, StepClass, Unreadable } from '../plan-model/index.js';
import type { Known } from '../providers/types.js';
import type { StateData } from '../state/types.js';
import type { AccountFacts, AddressBook, ObjectsInState } from './stages/address-book.js';
import type { LiveAccount } from './stages/live-account.js';
import type { PlanProblem } from './problems.js';
import type { Refactoring } from './stages/refactoring.js';
import type { Fingerprinter, WriteOnlyStatus } from './stages/write-only-values.js';

/** What the planner needs of the state store: its data, and fingerprints of write-only values. */
export interface PlanState {
  readonly data: Readonly<StateData>;
  readonly crypto: Fingerprinter;
}

export interface MakePlanInput {
  desired: DesiredState;
  state: PlanState;
  client: ApiClient;
  account: string;
  mode?: Plan['mode'];
  targets?: string[];
  /** `--exclude` patterns (never with targets): everything but these and what needs them is planned (targets.ts). */
  exclude?: string[];
  /**
   * `cplane reconcile`: the step classes to plan (step-class.ts). The steps of other classes, and those that
   * need them, are left out of the steps and listed in the plan's `withheld`. Absent: every step is planned.
   */
  classes?: readonly StepClass[];
  /** `--replace` addresses: issued again although nothing else changed (reissue.ts). */
  replace?: string[];
  /**
   * `--rewrap`: every value that readers read through wrappers (a kind's `relations.wrappedValue`) is written again,
   * bound to its place and wrapped for every reader under the writer key: once, after upgrading from wrappers made
   * before they were authenticated. It is `--replace` of each such address in state.
   */
  rewrap?: boolean;
  /** Requests in flight at once while refreshing (default 10). */
  parallelism?: number;
  env: NodeJS.ProcessEnv;
}

/**
 * What every stage reads, given once by make-plan.ts (a stage calls it `given`): the inputs, indexed. No stage
 * changes it: what a stage decides is its output (the desired stage's address book, `DesiredOutcome`).
 */
export interface StageInputs {
  readonly mode: Plan['mode'];
  readonly desired: DesiredState;
  readonly desiredByAddress: ReadonlyMap<string, DesiredResource>;
  /** The desired resources in dependency order (`orderDesired`), the order the desired stage plans them in. */
  readonly desiredInOrder: readonly DesiredResource[];
  /** State entries by address: what cplane last applied. */
  readonly state: StateData['resources'];
  /** State's addresses by kind and remote id. */
  readonly objectsInState: ObjectsInState;
  readonly live: LiveAccount;
  /** What the plan knows of the account besides addresses: its id, the clocks, the data sources read, the directory. */
  readonly facts: AccountFacts;
  /** What kinds may ask while planning (those facts), with the ids state records (the desired stage's outcome has the plan's). */
  readonly known: Known;
  /** Per desired address with write-only values: which differ from what was last applied (none: it has no write-only value). */
  readonly writeOnly: ReadonlyMap<string, WriteOnlyStatus>;
  /** `import` blocks of addresses not yet in state: the remote id each adopts. */
  readonly imports: Refactoring['imports'];
  /** `--replace` addresses. */
  readonly replace: ReadonlySet<string>;
}

/** What the desired stage decides besides its steps, which the stages and checks after it read. */
export interface AddressDecisions {
  /** Which remote id each address names once this plan is applied (adopted, or pending a new object). */
  readonly book: AddressBook;
  /** `known` answering from that book. */
  readonly known: Known;
  /**
   * Addresses whose step in this plan makes a new one-time secret (a token created, replaced or renewed): a value
   * delivered from one (`{ output }` source) is written again.
   */
  readonly sealing: ReadonlySet<string>;
}

/** What the desired stage works with: the inputs, and the book and the sealing addresses it fills in and returns. */
export interface DesiredWork extends StageInputs {
  readonly book: AddressBook;
  readonly sealing: Set<string>;
}

/** What the stages and checks after the desired stage read: the inputs, with what the desired stage decided. */
export type PlannedInputs = Omit<StageInputs, 'known'> & AddressDecisions;

export interface StageResult {
  steps: PlanStep[];
  drift: Drift[];
  unreadable: Unreadable[];
  problems: PlanProblem[];
}

export const emptyStage = (): StageResult => ({ steps: [], drift: [], unreadable: [], problems: [] });
