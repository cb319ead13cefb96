/** The plan as JSON: exactly the Plan (schema/plan.schema.json), for machines. */
import type { Plan } from '../plan-model/index.js';

export function renderPlanJson(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
