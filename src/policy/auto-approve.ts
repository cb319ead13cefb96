/**
 * A deployment's `autoApprove` (docs/deployments.md): a CEL rule over its plan's summary that, when true, lets
 * `apply --all` apply it without asking. It sees one variable, `plan`, with the ints `add`, `change`, `replace`,
 * `remove`, `policyViolations` and `incomplete`; a rule that does not compile is a diagnostic at its line, and
 * one that fails or gives something other than a bool approves nothing (it fails closed).
 */
import type { Diagnostic, SourceRange } from '../config/index.js';
import type { PlanCounts } from '../plan-model/index.js';


export type AutoApprove = (counts: PlanCounts) => { approved: boolean; why?: string };

const firstLine = (text: string) => text.split('\n')[0] ?? text;
/** What an autoApprove rule reads of its plan: `plan.FIELD`, each an int (also the language server's completion). */
export const AUTO_APPROVE_FIELDS = ['add', 'change', 'replace', 'remove', 'policyViolations', 'incomplete'] as const;

export async function compileAutoApprove(deployment: string, rule: string, source: SourceRange): Promise<AutoApprove | Diagnostic> {
  const { Environment } = await import('@marcbachmann/cel-js');
  const env = new Environment({ unlistedVariablesAreDyn: false }).registerVariable('plan', 'map');
  const problem = (code: string, summary: string, detail: string): Diagnostic => ({ severity: 'error', code, summary: `The autoApprove rule of deployment "${deployment}" ${summary}`, detail, range: source });
  let parsed: ReturnType<typeof env.parse>;
  try {
    parsed = env.parse(rule);
  } catch (error) {
    return problem('auto_approve_syntax', `is not valid CEL: ${firstLine((error as Error).message)}`, 'e.g. autoApprove: "plan.remove == 0 && plan.replace == 0"');
  }
  const checked = parsed.check();
  if (!checked.valid) return problem('auto_approve_type', `does not type-check: ${firstLine(checked.error?.message ?? 'type error')}`, `It sees plan.${AUTO_APPROVE_FIELDS.join(', plan.')} (ints).`);
  if (checked.type !== 'bool' && checked.type !== 'dyn') return problem('auto_approve_not_bool', `gives a ${checked.type}, not a bool`, 'It is true when the deployment may be applied without asking.');
  return (counts) => {
    const plan = Object.fromEntries(AUTO_APPROVE_FIELDS.map((field) => [field, BigInt(counts[field])]));
    try {
      const result = parsed({ plan });
      if (result === true) return { approved: true };
      return { approved: false, why: result === false ? 'its autoApprove rule is false for this plan' : 'its autoApprove rule did not give a bool' };
    } catch (error) {
      return { approved: false, why: `its autoApprove rule failed: ${firstLine(error instanceof Error ? error.message : String(error))}` };
    }
  };
}
