/**
 * The one table of why a step exists and what class that gives it, for `cplane reconcile`
 * (docs/applying.md, "Reconcile"): `maintenance` is what time makes due and nobody has to decide (it keeps
 * what was reviewed working), `drift` puts back what was changed outside cplane, and `change` is what a
 * change of the configuration asks for. A step with several causes takes the strictest class (`change`
 * over `drift` over `maintenance`), so a step is never applied for one cause while it carries another
 * the run may not apply.
 */
import type { StepCause, StepClass } from '../plan-model/index.js';

export const classOfCause: Readonly<Record<StepCause, StepClass>> = {
  configuration: 'change',
  // A person asked on the command line: never a scheduled job's decision.
  'replace-requested': 'change',
  'deleted-outside': 'drift',
  'changed-outside': 'drift',
  'granted-outside': 'drift',
  // A token past its expiry no longer works: issuing it again restores what was reviewed.
  expired: 'maintenance',
  renewal: 'maintenance',
  'overlap-ended': 'maintenance',
  // A generated value's rotation, with the re-wraps for its readers that ride in the same step.
  'rotation-due': 'maintenance',
  // A reader entry past its `until` is revoked (ends.ts), and with rotateOnRevoke the value rotated (record.ts).
  'grant-expired': 'maintenance',
  // A token's new plaintext written to the record its `deliverTo` names (change.ts).
  delivery: 'maintenance',
  // A reader's key is what a reviewer checks (docs/security.md): a new one is never maintenance, whatever made it.
  'reader-key-changed': 'change',
  // A key nobody vouches for: withheld by reconcile whatever its autoApply (withheld.ts), never approved by a rule.
  'reader-key-offered': 'change',
};

export const stepClasses: readonly StepClass[] = ['maintenance', 'drift', 'change'];

/** The strictest class of the causes; a step with no recorded cause counts as a change (never applied unasked). */
export function classOf(causes: readonly StepCause[]): StepClass {
  if (causes.length === 0) return 'change';
  return stepClasses[Math.max(...causes.map((c) => stepClasses.indexOf(classOfCause[c])))]!;
}
