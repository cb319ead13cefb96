/**
 * The error a plan ends with when it cannot be made: every problem found
 * (unknown targets, missing secret sources, preventDestroy, changes the API
 * cannot make), listed together rather than one per run.
 */
import { AbortError } from '../errors.js';

export class PlanError extends AbortError {
  readonly code = 'plan_failed';
  constructor(readonly problems: string[]) {
    super(
      `the plan cannot be made (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      'Fix the problems above and run `cplane plan` again.',
    );
  }
}
