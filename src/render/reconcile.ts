/**
 * The report of `cplane reconcile`: the steps it applies (or, with --dry-run, would apply) and the steps it
 * leaves for a person, each named with its class, as text, as Markdown (the step summary and the issue that
 * waits for a person) and as JSON. Made from a plan whose `withheld` the planner filled; shows, never computes.
 */
import { actionWords, type Plan, type PlanStep, type StepClass, type WithheldStep } from '../plan-model/index.js';
import { painter as makePainter } from '../paint.js';
import { codeBlock, codeSpan, markdownText, suggestedCommand } from '../text/escape-for.js';
import { safeName, safeText } from '../text/safe-text.js';
import { accountLabel } from './describe.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export interface ReconcileView {
  /** The classes `reconcile.autoApply` allows. */
  classes: readonly StepClass[];
  dryRun: boolean;
}

const stepLine = (step: Pick<PlanStep, 'address' | 'action' | 'reason'> & { class?: StepClass }) =>
  `[${step.class ?? 'change'}] ${actionWords[step.action].symbol} ${step.address} ${actionWords[step.action].future}${step.reason ? ` (${step.reason})` : ''}`;

const withheldLine = (step: WithheldStep) =>
  `${stepLine(step)}${step.needs !== undefined ? `: left out, it needs ${step.needs.length > 0 ? step.needs.join(', ') : 'a step that is not applied'}` : ''}`;

/** The one line that says what the run did, or would do. */
export function reconcileHeadline(plan: Plan, view: ReconcileView): string {
  const applied = plan.steps.length;
  const withheld = plan.withheld?.length ?? 0;
  const did = applied === 0 ? 'Nothing to apply' : `${view.dryRun ? 'Would apply' : 'Applies'} ${plural(applied, 'step')}`;
  return withheld === 0
    ? `${did}; nothing waits for a person.`
    : `${did}; ${plural(withheld, 'step')} ${withheld === 1 ? 'waits' : 'wait'} for a person (not in reconcile.autoApply: ${view.classes.join(', ')}).`;
}

/** `scope`: the words that run a suggested command for the same folder and deployment (cli/report/hint-scope.ts). */
export function renderReconcileText(plan: Plan, view: ReconcileView, options: { color: boolean; scope?: readonly string[] }): string {
  const paint = makePainter(options.color);
  const out: string[] = [];
  if (plan.origin) out.push(`Account: ${accountLabel(plan)}   Workspace: ${plan.origin.workspace}`);
  out.push(`Reconcile applies: ${view.classes.join(', ')}${view.dryRun ? ' (dry run: nothing is written)' : ''}`, '');
  if (plan.steps.length > 0) {
    out.push(paint('bold', view.dryRun ? 'Would apply:' : 'Applying:'));
    for (const step of plan.steps) out.push(`  ${safeText(stepLine({ ...step, address: safeName(step.address) }))}`);
    out.push('');
  }
  if (plan.withheld?.length) {
    const [planCommand, applyCommand] = ['plan', 'apply'].map((verb) => suggestedCommand([verb, ...(options.scope ?? [])]));
    out.push(paint('bold', `Not applied (run \`${planCommand}\` and \`${applyCommand}\`, or add the class to reconcile.autoApply):`));
    for (const step of plan.withheld) out.push(`  ${paint('warn', safeText(withheldLine({ ...step, address: safeName(step.address) })))}`);
    out.push('');
  }
  out.push(paint('bold', reconcileHeadline(plan, view)));
  return `${out.join('\n')}\n`;
}

/** What waits for a person, for the step summary and the issue. */
export function renderReconcileMarkdown(plan: Plan, view: ReconcileView): string {
  const name = plan.origin?.accountName;
  const account = name ? `${codeSpan(name)} (${codeSpan({ name: plan.account })})` : codeSpan({ name: plan.account });
  const workspace = plan.origin ? `, workspace ${codeSpan({ name: plan.origin.workspace })}` : '';
  const out = [`#### cplane reconcile for account ${account}${workspace}`, '', `**${markdownText(reconcileHeadline(plan, view))}**`, ''];
  if (plan.steps.length > 0) out.push(view.dryRun ? 'Would apply:' : 'Applied:', '', codeBlock(plan.steps.map(stepLine)), '');
  if (plan.withheld?.length) {
    out.push(
      'Waiting for a person (`cplane plan`, then `cplane apply`; or add the class to `reconcile.autoApply`):',
      '',
      codeBlock(plan.withheld.map(withheldLine)),
      '',
    );
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** The plan part of `cplane reconcile --json`: one object, before the apply's events. */
export function reconcileJson(plan: Plan, view: ReconcileView): Record<string, unknown> {
  return {
    type: 'reconcile',
    dryRun: view.dryRun,
    autoApply: view.classes,
    account: plan.account,
    workspace: plan.origin?.workspace,
    apply: plan.steps.map((s) => ({
      address: s.address,
      kind: s.kind,
      action: s.action,
      class: s.class ?? 'change',
      causes: s.causes ?? [],
      ...(s.reason ? { reason: s.reason } : {}),
    })),
    withheld: plan.withheld ?? [],
    unreadable: plan.unreadable,
  };
}
