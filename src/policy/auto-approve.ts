/**
 * A deployment's `autoApprove` (docs/deployments.md): a CEL rule over its plan that, when true, lets `apply --all`
 * apply it without asking. It sees one variable, `plan`, with the ints `add`, `change`, `replace`, `remove`,
 * `policyViolations`, `incomplete`, `readerKeyChanges`, `newReaders` and `warnings`, and `kinds` (kind -> number of
 * steps of that kind that change something); a rule that does not compile is a diagnostic at its line, and one
 * that fails or gives something other than a bool approves nothing (it fails closed).
 *
 * A plan that changes who can read a record (a reader key changed, a reader added, a key the API chose: plan-model's
 * `stepsNeedingPerson`) is never approved by a rule, whatever it says: the rule is not even asked, and the answer
 * names each such step (docs/security.md, "What an unattended run may do").
 */
import type { Diagnostic, SourceRange } from '../config/index.js';
import { addsReader, changesReaderKey, deploymentSummary, stepsNeedingPerson, warningCount, type Plan } from '../plan-model/index.js';

export type AutoApprove = (plan: Plan) => { approved: boolean; why?: string };

const firstLine = (text: string) => text.split('\n')[0] ?? text;
const COUNTS = ['add', 'change', 'replace', 'remove', 'policyViolations', 'incomplete'] as const;
const FIELDS = [...COUNTS, 'readerKeyChanges', 'newReaders', 'warnings'] as const;
/** What a rule reads of `plan` (the language server completes them): the ints, and `kinds`. */
export const AUTO_APPROVE_FIELDS = [...FIELDS, 'kinds'] as const;

/** What the rule sees as `plan`: CEL ints are bigints. */
export function autoApproveVariables(plan: Plan): Record<string, bigint | Record<string, bigint>> {
  const summary = deploymentSummary('', plan);
  const kinds: Record<string, bigint> = {};
  for (const step of plan.steps) if (step.action !== 'no-op') kinds[step.kind] = (kinds[step.kind] ?? 0n) + 1n;
  return {
    ...Object.fromEntries(COUNTS.map((field) => [field, BigInt(summary[field])])),
    readerKeyChanges: BigInt(plan.steps.filter(changesReaderKey).length),
    newReaders: BigInt(plan.steps.filter(addsReader).length),
    // What the plan shows with `!`: each step's notes and every notice of severity warning.
    warnings: BigInt(plan.steps.reduce((n, step) => n + (step.notes?.length ?? 0), 0) + warningCount(plan.notices)),
    kinds,
  };
}

export async function compileAutoApprove(deployment: string, rule: string, source: SourceRange): Promise<AutoApprove | Diagnostic> {
  const { Environment } = await import('@marcbachmann/cel-js');
  const env = new Environment({ unlistedVariablesAreDyn: false }).registerVariable('plan', 'map');
  const problem = (code: string, summary: string, detail: string): Diagnostic => ({
    severity: 'error',
    code,
    summary: `The autoApprove rule of deployment "${deployment}" ${summary}`,
    detail,
    range: source,
  });
  let parsed: ReturnType<typeof env.parse>;
  try {
    parsed = env.parse(rule);
  } catch (error) {
    return problem(
      'auto_approve_syntax',
      `is not valid CEL: ${firstLine((error as Error).message)}`,
      'e.g. autoApprove: "plan.remove == 0 && plan.replace == 0"',
    );
  }
  const checked = parsed.check();
  if (!checked.valid)
    return problem(
      'auto_approve_type',
      `does not type-check: ${firstLine(checked.error?.message ?? 'type error')}`,
      `It sees plan.${FIELDS.join(', plan.')} (ints) and plan.kinds (kind -> int).`,
    );
  if (checked.type !== 'bool' && checked.type !== 'dyn')
    return problem(
      'auto_approve_not_bool',
      `gives a ${checked.type}, not a bool`,
      'It is true when the deployment may be applied without asking.',
    );
  return (plan) => {
    const unruled = stepsNeedingPerson(plan);
    if (unruled.length > 0) {
      return {
        approved: false,
        why: `no autoApprove rule approves a plan that changes who can read a record: ${unruled.map((s) => `${s.address} ${s.why}`).join('; ')}`,
      };
    }
    try {
      const result = parsed({ plan: autoApproveVariables(plan) });
      if (result === true) return { approved: true };
      return {
        approved: false,
        why: result === false ? 'its autoApprove rule is false for this plan' : 'its autoApprove rule did not give a bool',
      };
    } catch (error) {
      return { approved: false, why: `its autoApprove rule failed: ${firstLine(error instanceof Error ? error.message : String(error))}` };
    }
  };
}
