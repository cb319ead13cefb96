/**
 * `cplane reconcile [dir]`: the scheduled job. Under the state lock it finishes what an earlier run left in
 * the journal, plans, and applies only the steps of the classes the configuration's `reconcile.autoApply`
 * allows (default: maintenance), with no prompt: the reviewed configuration is the approval. What it does not
 * apply (and what needs it) it reports, and exits 2; with --github the report goes to the step summary and
 * to the step outputs the action's issue step reads. `--dry-run` plans and prints, and writes nothing.
 */
import { identityOf } from '../../api/client.js';
import { forwardClientEvents, type ApplyEvent, type ApplyResult } from '../../applier/index.js';
import { makePlan } from '../../planner/index.js';
import { blockingFindings, findingLine, type Plan, type StepClass } from '../../plan-model/index.js';
import { reconcileJson, renderReconcileMarkdown, renderReconcileText, type ReconcileView } from '../../render/index.js';
import { summaryLines } from '../../ui/summary-text.js';
import { hintScope } from '../report/hint-scope.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { givenToken, parseParallelism, tokenVariable } from '../../session/connection.js';
import { openWorkspace } from '../../session/workspace.js';
import { markdownText } from '../../text/escape-for.js';
import { exitCodes } from '../exit-codes.js';
import { githubReporter } from '../report/github-flag.js';
import { readingStatus } from '../report/reading-status.js';
import { accountNameOf, placeholderProblems, planOrigin } from '../../saved-plan/index.js';
import { applyInterruptibly, clientEventHandler, finishJournal, jsonOutput, plainOutput } from './apply.js';
import { jsonText } from '../../text/json-text.js';

/** What a configuration without `reconcile:` lets reconcile apply. */
const DEFAULT_CLASSES: readonly StepClass[] = ['maintenance'];

export const reconcileCommand: CommandModule = {
  async run(ctx) {
    const json = ctx.values.json === true;
    const dryRun = ctx.values['dry-run'] === true;
    const parallelism = parseParallelism(ctx.values.parallelism);
    if (ctx.positionals.length > 1)
      throw new AbortError(`Unexpected arguments: ${ctx.positionals.slice(1).join(' ')}.`, 'Usage: cplane reconcile [dir] [options]');
    if (!dryRun) refuseServiceAccountToken(ctx);
    const github = githubReporter(ctx);
    // Filled once the workspace is open: the words that run a suggested command for this folder and deployment.
    const scope: string[] = [];
    const sink = json ? jsonOutput(ctx) : plainOutput(ctx, 'apply', scope);
    const onEvent = (event: ApplyEvent) => sink.event(event);
    const forward = clientEventHandler(ctx.env, forwardClientEvents(onEvent));
    let status = readingStatus(ctx.stderr, { enabled: false });
    try {
      const workspace = await openWorkspace(ctx, {
        lock: !dryRun,
        command: 'cplane reconcile',
        onClientEvent: (event) => {
          status.onClientEvent(event);
          forward(event);
        },
      });
      const { state, client } = workspace;
      scope.push(...hintScope(ctx, workspace.dir));
      try {
        if (!dryRun)
          await finishJournal({
            state,
            client,
            onEvent,
            verb: 'reconcile',
            json,
            color: false,
            stdout: ctx.stdout,
            text: (message) => sink.text(message),
          });
        const classes = workspace.desired.reconcile?.autoApply ?? DEFAULT_CLASSES;
        const view: ReconcileView = { classes, dryRun };
        status = readingStatus(ctx.stderr, { enabled: !json && !ctx.env.CI });
        const [made, accountName] = await Promise.all([
          makePlan({
            desired: workspace.desired,
            state,
            client,
            account: workspace.account,
            mode: 'normal',
            classes,
            parallelism,
            env: ctx.env,
          }),
          accountNameOf(client, workspace.account),
        ]).finally(() => status.stop());
        const plan: Plan = { ...made, origin: await planOrigin(ctx, workspace, accountName) };
        const misplaced = placeholderProblems(plan);
        if (misplaced.length > 0) throw new Error(`the plan puts secrets in fields that are not write-only: ${misplaced.join('; ')}`);
        if (json) ctx.stdout.write(`${jsonText(reconcileJson(plan, view))}\n`);
        else ctx.stdout.write(renderReconcileText(plan, view, { color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR, scope }));
        refuseByPolicy(plan);
        const result =
          !dryRun && plan.steps.length > 0 ? await applyInterruptibly(ctx, { plan, state, client, parallelism, onEvent, sink }) : undefined;
        const markdown = renderReconcileMarkdown(plan, view);
        github?.reconcile(plan, markdown, { dir: workspace.dir, workspace: workspace.workspace });
        if (result)
          github?.summary(
            `#### cplane reconcile result\n\n${summaryLines(result, 'Apply', scope)
              .map((l) => `- ${markdownText(l.text.trim())}`)
              .join('\n')}\n`,
          );
        return exitCodeOf(plan, result);
      } finally {
        await workspace.close();
      }
    } catch (error) {
      github?.failed(error, 'reconcile');
      throw error;
    }
  },
};

/** Every write is a human-only operation: say so before any request (a dry run only reads). */
function refuseServiceAccountToken(ctx: CommandContext): void {
  if (identityOf(givenToken(ctx)) !== 'service_account') return;
  throw new AbortError(
    `cplane reconcile needs a personal access token (sk-svc-pat-): ${tokenVariable(ctx)} is a Service Account token (sk-svc-sa-), which cannot write; no request was sent.`,
    'Run it with a personal access token, or with --dry-run to see what it would do.',
  );
}

/** A mandatory policy finding stops reconcile before any write. */
function refuseByPolicy(plan: Plan): void {
  const blocking = blockingFindings(plan);
  if (blocking.length === 0) return;
  throw new AbortError(
    `cplane reconcile refused by policy: ${blocking.length} mandatory finding${blocking.length === 1 ? '' : 's'}; nothing was changed:\n${blocking.map((f) => `  - ${findingLine(f)}`).join('\n')}`,
    'Change the configuration so the plan satisfies the policies (docs/policies.md), then run reconcile again.',
  );
}

/** The exit code: interrupted, a failed write, a withheld change, an unread item, else ok. */
function exitCodeOf(plan: Plan, result: ApplyResult | undefined): number {
  if (result?.interrupted) return exitCodes.interrupted;
  if (result && result.failed.length > 0) return exitCodes.error;
  if ((plan.withheld?.length ?? 0) > 0) return exitCodes.changes;
  return plan.unreadable.length > 0 ? exitCodes.incomplete : exitCodes.ok;
}
