/** The plan as JSON: exactly the Plan (schema/plan.schema.json), for machines. */
import type { Plan } from '../plan-model/index.js';
import { jsonText } from '../text/json-text.js';

export function renderPlanJson(plan: Plan): string {
  return `${jsonText(plan, 2)}\n`;
}
