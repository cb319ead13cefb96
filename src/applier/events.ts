/**
 * What the applier reports while it works, and what it returns at the end.
 * Events are plain data for the UI, the plain-line writer and `--json`; they
 * never hold a secret (no bodies, no token plaintext, only the names of what
 * was sealed into state).
 */
import type { Action } from '../plan-model/index.js';
import type { ResourceKind } from '../config/types.js';

/** Why a step did not run. */
export type SkipCause = 'dependency-failed' | 'interrupted';

export interface StepRef {
  stepId: string;
  address: string;
  kind: ResourceKind;
  action: Action;
}

export interface StepFailure extends StepRef {
  /** What went wrong, ready to print: the API's reason, the request id, and what to do next. */
  reason: string;
  status?: number;
  requestId?: string;
}

export interface StepSkip extends StepRef {
  cause: SkipCause;
  /** The failed step this one depends on (for `dependency-failed`). */
  after?: string;
}

export interface StepDone extends StepRef {
  /** Remote id recorded in state (absent when the step forgot the address). */
  id?: string;
  durationMs: number;
  /** Names of the one-time secrets sealed into state (e.g. `plaintext`): announced, never shown. */
  sealed: string[];
  /** What the answers say a person should know or do (a group role whose members' keys are still being sealed). */
  notices?: string[];
}

export type ApplyEvent =
  | {
      type: 'journal-resent';
      address: string;
      operation: string;
      outcome: 'done' | 'failed';
      reason?: string;
      requestId?: string;
      notices?: string[];
    }
  | { type: 'journal-dropped'; address: string; operation: string; createdAt: string }
  | ({ type: 'step-started'; total: number } & StepRef)
  | ({ type: 'step-retry'; attempt: number; delayMs: number; status?: number; reason: string } & StepRef)
  /** The API refused a request for its rate (429): the token's requests are held back to this rate from now on. */
  | { type: 'rate-limited'; ratePerSecond: number }
  | ({ type: 'step-done' } & StepDone)
  | ({ type: 'step-failed'; durationMs: number } & StepFailure)
  | ({ type: 'step-skipped' } & StepSkip)
  | { type: 'interrupted' };

export interface ApplyResult {
  done: StepDone[];
  failed: StepFailure[];
  skipped: StepSkip[];
  /** Ctrl-C stopped the apply before every step ran. */
  interrupted: boolean;
  durationMs: number;
}

export interface RecoveryResult {
  /** Pending writes resent and recorded. */
  resent: number;
  /** Entries older than the API's idempotency retention, dropped: a refresh reconciles them. */
  dropped: { address: string; operation: string; createdAt: string }[];
  /** Resends that failed; the entries stay in the journal when the write may have happened. */
  failed: { address: string; operation: string; reason: string; requestId?: string; kept: boolean }[];
}
