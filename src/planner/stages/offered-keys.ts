/**
 * The keys a plan wraps for (docs/security.md, "What an unattended run may do"): every `$wrap` of every step is
 * checked against the key state recorded for that grant and the keys the repository gives (a pin, a directory
 * key; providers' `unvouchedKey`). A step that wraps for a key neither vouches for, which the API chose, gets the
 * cause `reader-key-offered` (class `change`: reconcile withholds it whatever its autoApply, and no autoApprove
 * rule approves its plan) and, where state recorded another key, a reason naming the reader and both key ids.
 * One check over the plan's steps, so every cause that writes a value (a rotation due, a grant ended with
 * rotateOnRevoke, a renewed token's delivery, a grant created again) is held by the same rule.
 */
import { wrapsOf, type PlanStep, type StepCause } from '../../plan-model/index.js';
import { unvouchedKey, type UnvouchedKey } from '../../providers/index.js';
import type { PlannedInputs } from '../stage-inputs.js';
import { classOf } from '../step-class.js';

/** How the reason of a step names a key change it wraps for. */
const changeWords = (key: Required<UnvouchedKey>) =>
  `wraps for ${key.reader}'s key ${key.offered}, which the API offers and no pin fixes; state recorded ${key.recorded}: only a person applies this`;

export function markOfferedKeys(steps: readonly PlanStep[], given: Pick<PlannedInputs, 'known' | 'book' | 'state'>): PlanStep[] {
  const recordedKeyId = (kind: string, id: string) => {
    const address = given.book.stateAddressOf(kind, id);
    const recorded = address === undefined ? undefined : given.state[address]?.inputs.readerKeyId;
    return typeof recorded === 'string' ? recorded : undefined;
  };
  return steps.map((step) => {
    const keys = wrapsOf(step).flatMap((wrap) => unvouchedKey(given.known, wrap, recordedKeyId) ?? []);
    if (keys.length === 0) return step;
    const causes: StepCause[] = [...new Set([...(step.causes ?? []), 'reader-key-offered' as const])];
    const changed = keys.filter((k): k is Required<UnvouchedKey> => k.recorded !== undefined).map(changeWords);
    const reason = [step.reason, ...new Set(changed)].filter(Boolean).join('; ');
    return { ...step, causes, class: classOf(causes), ...(reason ? { reason } : {}) };
  });
}
