/**
 * The error a plan ends with when it cannot be made: every problem found
 * (unknown targets, missing secret sources, preventDestroy, changes the API
 * cannot make), as diagnostics listed together rather than one per run, and
 * printed by the renderer of configuration errors.
 */
import { formatDiagnostic } from '../config/diagnostics.js';
import { AbortError } from '../errors.js';
import type { PlanProblem } from './problems.js';

export class PlanError extends AbortError {
  override readonly name = 'PlanError';
  readonly code = 'plan_failed';
  constructor(readonly diagnostics: PlanProblem[]) {
    const n = diagnostics.length;
    super(
      `the plan cannot be made (${n} problem${n === 1 ? '' : 's'}):\n${diagnostics.map((d) => formatDiagnostic(d, { color: false })).join('\n')}`,
      'Fix the problems above and run `cplane plan` again.',
    );
  }
}
