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
import type { AddressBook } from './stages/address-book.js';
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

/** What every stage reads, given once by make-plan.ts (a stage calls it `given`): the inputs, indexed. */
export interface StageInputs {
  mode: Plan['mode'];
  desired: DesiredState;
  desiredByAddress: ReadonlyMap<string, DesiredResource>;
  /** State entries by address: what cplane last applied. */
  state: StateData['resources'];
  live: LiveAccount;
  book: AddressBook;
  known: Known;
  /** Per desired address: which write-only values differ from what was last applied. */
  writeOnly: ReadonlyMap<string, WriteOnlyStatus>;
  /** `import` blocks of addresses not yet in state: the remote id each adopts. */
  imports: Refactoring['imports'];
  /** `--replace` addresses. */
  replace: ReadonlySet<string>;
  /**
   * Addresses whose step in this plan makes a new one-time secret (a token created, replaced or renewed), filled
   * as the desired stage plans them: a value delivered from one (`{ output }` source) is written again.
   */
  sealing: Set<string>;
}

export interface StageResult {
  steps: PlanStep[];
  drift: Drift[];
  unreadable: Unreadable[];
  problems: PlanProblem[];
}

export const emptyStage = (): StageResult => ({ steps: [], drift: [], unreadable: [], problems: [] });
