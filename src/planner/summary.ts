/** The summary stage: how many steps add, change, replace, remove and import, counted by the one table of action words. */
import { actionWords, type PlanStep, type PlanSummary } from '../plan-model/index.js';

export function summarize(steps: readonly PlanStep[]): PlanSummary {
  const summary: PlanSummary = { add: 0, change: 0, replace: 0, remove: 0, import: 0 };
  for (const step of steps) {
    const column = actionWords[step.action].counts;
    if (column) summary[column]++;
  }
  return summary;
}
