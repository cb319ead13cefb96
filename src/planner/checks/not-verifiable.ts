/**
 * Addresses a plan cannot verify: configured resources of a kind known only from state (`observation:
 * 'state'`, a project's group role), which were compared with what cplane last applied because no operation
 * reads them back. The plan lists them so that "No changes" is never read as "checked on the account".
 */
import type { NotVerifiable, PlanStep } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { PlannedInputs } from '../stage-inputs.js';

export function notVerifiable(given: PlannedInputs, steps: readonly PlanStep[], targets: readonly string[]): NotVerifiable[] {
  if (given.mode === 'destroy') return [];
  const planned = new Set(steps.map((s) => s.address));
  return given.desired.resources
    .filter((r) => definitionOf(r.kind).observation === 'state' && given.state[r.address] !== undefined)
    .filter((r) => targets.length === 0 || targets.includes(r.address) || planned.has(r.address))
    .map((r) => ({ address: r.address, kind: r.kind }));
}
