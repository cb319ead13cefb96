/** The summary stage: how many steps add, change, replace, remove, import, move and forget, counted by the one table of action words. */
import { actionWords, type PlanStep, type PlanSummary } from '../../plan-model/index.js';

export function summarize(steps: readonly PlanStep[]): PlanSummary {
  const summary: PlanSummary = { add: 0, change: 0, replace: 0, remove: 0, import: 0, move: 0, forget: 0 };
  for (const step of steps) {
    const column = actionWords[step.action].counts;
    if (column) summary[column]++;
    // A move that also changes the object counts in both columns.
    if (step.moved && step.action !== 'move') summary.move++;
  }
  return summary;
}
