/**
 * What a plan amounts to. A plan is incomplete when something it needed could
 * not be read: it then covers only the rest, never says "No changes", and
 * `plan --detailed-exitcode` exits 3 rather than 0 (README, exit codes).
 */
import type { Plan } from './plan.js';

/** Whether applying the plan would change anything (in state or live). */
export function hasChanges(plan: Pick<Plan, 'steps' | 'mode' | 'drift' | 'pendingWrites'>): boolean {
  return (
    plan.steps.some((s) => s.action !== 'no-op') ||
    (plan.mode === 'refresh-only' && plan.drift.length > 0) ||
    (plan.pendingWrites?.length ?? 0) > 0
  );
}

export function isIncomplete(plan: Pick<Plan, 'unreadable'>): boolean {
  return plan.unreadable.length > 0;
}

/** What could not be read, one item each: an address, or `every KIND`. */
export function unreadableNames(plan: Pick<Plan, 'unreadable'>): string[] {
  return plan.unreadable.map((u) => u.address ?? `every ${u.kind}`);
}
