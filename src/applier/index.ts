/**
 * The applier: performs a plan. It resends what a previous run left in the
 * journal, then walks the plan's steps in dependency order, saving each write
 * before sending it. It knows no resource kind: everything it does is spelled
 * out in the plan (see plan-model/), and what needs a secret or a key at apply
 * time is resolved by the key ring it is given.
 */
export { applyPlan, forwardClientEvents } from './walk.js';
export type { ApplyOptions } from './apply-run.js';
export { stateKeyRing } from './key-ring.js';
export type { KeyRing } from './template.js';
export { resendJournal, IDEMPOTENCY_RETENTION_MS, type ResendOptions } from './journal.js';
export type { ApplyEvent, ApplyResult, RecoveryResult, StepDone, StepFailure, StepSkip, StepRef, SkipCause } from './events.js';
