/**
 * What a plan does to who can read a record, found from the plan itself (its steps' `$wrap` placeholders and
 * causes), so no kind is named: the steps that change the key a reader is wrapped for, the steps that give a
 * record a new reader, and the steps that wrap for a key nobody vouches for. A run nobody reviews never applies
 * these (docs/security.md, "What an unattended run may do"): `cplane reconcile` withholds the last
 * (planner/stages/withheld.ts), and a deployment's `autoApprove` rule never approves a plan with any of them
 * (policy/auto-approve.ts), whatever the rule says.
 */
import { eachPlaceholder, type WrapTarget } from './placeholder.js';
import type { Plan, PlanStep } from './plan.js';

/** Every `$wrap` of the step's writes: whom it wraps a record's data key for. */
export function wrapsOf(step: Pick<PlanStep, 'writes'>): WrapTarget[] {
  const wraps: WrapTarget[] = [];
  for (const write of step.writes) {
    eachPlaceholder(write.body, 'body', (placeholder) => {
      if ('tag' in placeholder && placeholder.tag === '$wrap') wraps.push(placeholder.wrap);
    });
  }
  return wraps;
}

/** The step wraps for a reader key the API offered and that neither state nor the repository vouches for. */
export const wrapsForOfferedKey = (step: Pick<PlanStep, 'causes'>): boolean => step.causes?.includes('reader-key-offered') ?? false;

/** The step changes the key a reader's data key is wrapped for (a new pin, a new directory key, a key the API offers). */
export const changesReaderKey = (step: Pick<PlanStep, 'causes'>): boolean => step.causes?.includes('reader-key-changed') ?? false;

/** The step gives a record a reader it has not got: it creates something its data key is wrapped for. */
export const addsReader = (step: Pick<PlanStep, 'action' | 'writes'>): boolean => step.action === 'create' && wrapsOf(step).length > 0;

/** A step a rule never approves, and why, in words that follow the address. */
export interface NeedsPerson {
  address: string;
  why: string;
}

/**
 * The steps of the plan that only a person may approve, each with why: a reader key changed, a reader added,
 * or a key the API chose. Empty when a rule may decide.
 */
export function stepsNeedingPerson(plan: Pick<Plan, 'steps'>): NeedsPerson[] {
  const out: NeedsPerson[] = [];
  for (const step of plan.steps) {
    const why = changesReaderKey(step)
      ? 'changes the key a reader is wrapped for'
      : addsReader(step)
        ? 'adds a reader to a record'
        : wrapsForOfferedKey(step)
          ? 'wraps for a reader key the API offers, which neither state nor a pin vouches for (only a pin makes this safe)'
          : undefined;
    if (why) out.push({ address: step.address, why: step.reason ? `${why}: ${step.reason}` : why });
  }
  return out;
}
