/**
 * A plan is incomplete when something it needed could not be read: it then
 * covers only the rest, never says "No changes", and `plan
 * --detailed-exitcode` exits 3 rather than 0 (README, exit codes).
 */
import type { Plan } from './plan.js';

export function isIncomplete(plan: Pick<Plan, 'unreadable'>): boolean {
  return plan.unreadable.length > 0;
}

/** What could not be read, one item each: `project.payments`, or `every gateway_token`. */
export function unreadableNames(plan: Pick<Plan, 'unreadable'>): string[] {
  return plan.unreadable.map((u) => u.address ?? `every ${u.kind}`);
}
