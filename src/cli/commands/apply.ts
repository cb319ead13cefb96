/**
 * `cplane apply [dir | PLANFILE]`: finish what an earlier run left in the
 * journal, plan, ask for approval, then perform the plan and show it happen:
 * the Ink view on a terminal, one plain line per event otherwise, NDJSON with
 * --json. `cplane destroy` (destroy.ts) is the same run with the destroy plan.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { identityOf, type ClientEvent } from '../../api/client.js';
import { applyPlan, forwardClientEvents, resendJournal, stateKeyRing, type ApplyEvent, type ApplyResult } from '../../applier/index.js';
import { resolveSecret } from '../../config/index.js';
import { makeOffboardingPlan } from '../../access/index.js';
import { foreignPendingWrites, makePlan, pendingWritesOf, type MakePlanInput } from '../../planner/index.js';
import { blockingFindings, findingLine, hasChanges, type Plan } from '../../plan-model/index.js';
import { accountLabel, noticeLines, renderPendingWritesText, renderPlanMarkdown, renderPlanText } from '../../render/index.js';
import { painter } from '../../paint.js';
import { eventLine } from '../../ui/plain-lines.js';
import { summaryLines } from '../../ui/summary-text.js';
import { hintScope } from '../hint-scope.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { givenToken, parseParallelism, tokenVariable } from '../../session/connection.js';
import { githubReporter, type GithubReporter } from '../github-flag.js';
import { readingStatus } from '../reading-status.js';
import {
  accountNameOf,
  outsideSavedPlan,
  placeholderProblems,
  planOrigin,
  prepareSavedPlan,
  readPlanFileWithDigest,
  trustedPlan,
} from '../../saved-plan/index.js';
import type { StateStore } from '../../state/index.js';
import { refuseTargetWithExclude } from '../target-flags.js';
import { openWorkspace } from '../../session/workspace.js';
import { codeSpan, markdownText, suggestedCommand } from '../../text/escape-for.js';
import { safeText } from '../../text/safe-text.js';
import { writeWeakSecretWarnings } from '../weak-secrets.js';
import { wantsDeployments } from '../deployments/choose.js';
import { applyDeployments, isPlanFolder } from '../deployments/apply-all.js';

export const applyCommand: CommandModule = {
  run: (ctx) => (wantsDeployments(ctx) || isPlanFolder(ctx) ? applyDeployments(ctx, runApply) : runApply(ctx, 'apply')),
};

/** Test hook: `CPLANE_TEST_KILL_AFTER_REQUESTS=k` kills the process with SIGKILL right after the k-th API answer arrives, before it is recorded. */
const KILL_HOOK = 'CPLANE_TEST_KILL_AFTER_REQUESTS';
/** Test hook: `CPLANE_TEST_KILL_AFTER_OPERATION=NAME` kills it the same way right after the first answer of operation NAME. */
const KILL_OPERATION_HOOK = 'CPLANE_TEST_KILL_AFTER_OPERATION';

type Verb = 'apply' | 'destroy';

export interface Output {
  event(event: ApplyEvent): void;
  /** Free text for people (skipped with --json). */
  text(text: string): void;
  finish(result: ApplyResult): Promise<void>;
}

export async function runApply(ctx: CommandContext, verb: Verb): Promise<number> {
  const json = ctx.values.json === true;
  const interactive = !json && ctx.values['no-input'] !== true && ctx.stdout.isTTY === true && ctx.stdin.isTTY === true;
  const parallelism = parseParallelism(ctx.values.parallelism);
  const targets = (ctx.values.target as string[] | undefined) ?? [];
  const exclude = (ctx.values.exclude as string[] | undefined) ?? [];
  refuseTargetWithExclude(targets, exclude);
  const replace = (ctx.values.replace as string[] | undefined) ?? [];
  const rewrap = ctx.values.rewrap === true;
  const [where, ...rest] = ctx.positionals;
  const planPath =
    where !== undefined && statSync(resolve(ctx.cwd, where), { throwIfNoEntry: false })?.isFile() ? resolve(ctx.cwd, where) : undefined;
  // A saved plan may be followed by the configuration folder it was made for.
  const planDir = planPath && verb === 'apply' && rest.length === 1 ? rest[0] : undefined;
  const extra = planDir !== undefined ? [] : rest;
  if (extra.length > 0)
    throw new AbortError(
      `Unexpected arguments: ${extra.join(' ')}.`,
      `Usage: cplane ${verb} [${verb === 'apply' ? 'dir | PLANFILE' : 'dir'}] [options]`,
    );

  if (planPath && verb === 'destroy')
    throw new AbortError(
      'cplane destroy takes a configuration folder, not a plan file.',
      `To apply a saved destroy plan, run \`${suggestedCommand(['apply', where!])}\`.`,
    );
  if (planPath && targets.length > 0)
    throw new AbortError(
      '--target cannot be used with a saved plan: the plan already says what it changes.',
      'Make a new plan with `cplane plan --target ... --out FILE`.',
    );
  if (planPath && exclude.length > 0)
    throw new AbortError(
      '--exclude cannot be used with a saved plan: the plan already says what it changes.',
      'Make a new plan with `cplane plan --exclude ... --out FILE`.',
    );
  // A saved plan was reviewed when it was made: applying it is the approval (as in Terraform).
  // A deployment with an autoApprove rule is asked about (or refused) once its plan is known.
  if (!planPath && ctx.values['auto-approve'] !== true && !interactive && !ctx.deployment?.autoApprove) {
    throw new AbortError(`cplane ${verb} needs approval: run it in a terminal, or pass --auto-approve.`);
  }
  const github = githubReporter(ctx);
  try {
    return await applyWith(ctx, verb, { json, interactive, parallelism, targets, exclude, replace, rewrap, planPath, planDir, github });
  } catch (error) {
    github?.failed(error, verb);
    throw error;
  }
}

interface ApplySettings {
  json: boolean;
  interactive: boolean;
  parallelism: number;
  targets: string[];
  exclude: string[];
  replace: string[];
  rewrap: boolean;
  planPath: string | undefined;
  planDir: string | undefined;
  github: GithubReporter | undefined;
}

async function applyWith(
  ctx: CommandContext,
  verb: Verb,
  { json, interactive, parallelism, targets, exclude, replace, rewrap, planPath, planDir, github }: ApplySettings,
): Promise<number> {
  const read = planPath ? await readPlanFileWithDigest(planPath) : undefined;
  const saved = read?.plan;
  // Everything that can be checked without the network is, so an altered or misplaced plan sends no request.
  const prepared = saved ? await prepareSavedPlan(ctx, saved, planPath!, planDir) : undefined;
  const opening = prepared?.ctx ?? ctx;

  // Every write is a human-only operation: say so before any request rather than after a refresh.
  if (identityOf(givenToken(ctx)) === 'service_account') {
    throw new AbortError(
      `cplane ${verb} needs a personal access token (sk-svc-pat-): ${tokenVariable(ctx)} is a Service Account token (sk-svc-sa-), which cannot write; no request was sent.`,
      'Run it with a personal access token; a Service Account token can run `cplane plan`.',
    );
  }
  // On a terminal, journal resends and notices before the live view are plain lines too.
  // Filled once the workspace is open: the words that run a suggested command (a reveal) for this folder and deployment.
  const scope: string[] = [];
  let sink: Output = json ? jsonOutput(ctx) : plainOutput(ctx, verb, scope);
  const onEvent = (event: ApplyEvent) => sink.event(event);
  // On a terminal, a status line counts the requests while the account is read for the plan (set below,
  // after the journal's resends, which print lines of their own).
  let status = readingStatus(ctx.stderr, { enabled: false });
  const forward = clientEventHandler(ctx.env, forwardClientEvents(onEvent));
  const workspace = await openWorkspace(opening, {
    lock: true,
    ...(saved ? { savedVariables: saved.origin.variables } : {}),
    // The lock names the pull request whose plan is applied: an apply that finds the state held says which one.
    command: `cplane ${verb}${read ? ` (${allowance(ctx.env, read.plan, read.digest)})` : ''}`,
    onClientEvent: (event) => {
      status.onClientEvent(event);
      forward(event);
    },
  });
  const { state, client } = workspace;
  scope.push(...hintScope(opening, workspace.dir));
  try {
    const recovery = await finishJournal({
      state,
      client,
      onEvent,
      verb,
      json,
      color: interactive && !ctx.env.NO_COLOR,
      stdout: ctx.stdout,
      text: (message) => sink.text(message),
    });

    const mode = saved ? saved.mode : verb === 'destroy' ? 'destroy' : 'normal';
    status = readingStatus(ctx.stderr, { enabled: !json && !ctx.env.CI });
    const [fresh, accountName] = await Promise.all([
      planAgain(
        {
          desired: workspace.desired,
          state,
          client,
          account: workspace.account,
          mode,
          targets: saved ? saved.targets : targets,
          exclude: saved ? (saved.exclude ?? []) : exclude,
          replace: saved ? (saved.replace ?? []) : replace,
          rewrap: saved ? false : rewrap,
          parallelism,
          env: ctx.env,
        },
        saved,
      ),
      // Read again even for a saved plan: the name shown for approval must not come from a file anyone could edit.
      accountNameOf(client, workspace.account),
    ]).finally(() => status.stop());
    let plan: Plan = { ...fresh, origin: saved ? { ...saved.origin, accountName } : await planOrigin(opening, workspace, accountName) };
    if (saved) {
      if (!hasChanges(fresh)) {
        github?.plan(plan, renderPlanMarkdown(plan), { dir: workspace.dir, workspace: workspace.workspace, planFile: planPath! });
        sink.text(`No changes. The plan ${planPath} has nothing left to do (it was applied already, or the objects already match).`);
        const warnings = warningsToRepeat(fresh);
        if (warnings) sink.text(warnings);
        if (json) ctx.stdout.write(`${JSON.stringify({ type: 'plan', changes: false, notices: fresh.notices })}\n`);
        return 0;
      }
      plan = {
        ...trustedPlan(saved, fresh, planPath!, {
          count: recovery.resent,
          idNow: (address) => state.data.resources[address]?.id,
          updatedAt: (address) => state.data.resources[address]?.updatedAt,
          changedFiles: prepared!.changedFiles,
        }),
        origin: plan.origin,
      };
      const elsewhere = outsideSavedPlan(saved, fresh);
      if (prepared!.changedFiles.length > 0)
        sink.text(
          `The configuration changed since the plan was made (${prepared!.changedFiles.join(', ')}); the plan made now has exactly the saved steps at the plan's ${saved.steps.length} address(es), so they are applied as reviewed.`,
        );
      if (elsewhere.length > 0)
        sink.text(
          safeText(
            `Not in this plan, so not applied (left for a plan of its own): ${elsewhere.map((s) => `${s.address} (${s.action})`).join(', ')}.`,
          ),
        );
    }
    // Every plan made here comes from the configuration; this only guards against a bug that would send a secret elsewhere.
    const misplaced = placeholderProblems(plan);
    if (misplaced.length > 0) throw new Error(`the plan puts secrets in fields that are not write-only: ${misplaced.join('; ')}`);
    writeWeakSecretWarnings(ctx);
    if (json)
      ctx.stdout.write(
        `${JSON.stringify({ type: 'plan', changes: hasChanges(plan), summary: plan.summary, steps: plan.steps.length, notices: plan.notices })}\n`,
      );
    else
      ctx.stdout.write(
        renderPlanText(plan, {
          color: interactive && !ctx.env.NO_COLOR,
          ...(ctx.stdout.isTTY && ctx.stdout.columns ? { width: ctx.stdout.columns } : {}),
        }),
      );
    github?.plan(plan, renderPlanMarkdown(plan), {
      dir: workspace.dir,
      workspace: workspace.workspace,
      ...(planPath ? { planFile: planPath } : {}),
    });
    if (!hasChanges(plan)) return 0;
    // A mandatory policy finding stops the run before approval and before any write (docs/policies.md).
    const blocking = blockingFindings(plan);
    if (blocking.length > 0) {
      throw new AbortError(
        `cplane ${verb} refused by policy: ${blocking.length} mandatory finding${blocking.length === 1 ? '' : 's'}; nothing was changed:\n${blocking.map((f) => `  - ${findingLine(f)}`).join('\n')}`,
        'Change the configuration so the plan satisfies the policies (docs/policies.md), then plan again.',
      );
    }
    if (!json && !interactive) ctx.stdout.write('\n');

    const ruled = !saved && ctx.values['auto-approve'] !== true ? ctx.deployment?.autoApprove?.(plan) : undefined;
    if (ruled?.approved) sink.text(`Approved by the autoApprove rule of deployment ${ctx.deployment!.name}.`);
    else if (ruled && !interactive) {
      throw new AbortError(
        `Deployment ${ctx.deployment!.name} needs approval: ${ruled.why ?? 'its autoApprove rule does not hold'}; nothing was changed.`,
        'Run it in a terminal to approve it, or pass --auto-approve.',
      );
    }
    if (!saved && ctx.values['auto-approve'] !== true && !ruled?.approved) {
      // Ink and React load only here and for the live view: runs without a terminal never need them.
      const { renderConfirm } = await import('../../ui/confirm-prompt.js');
      const approved = await renderConfirm(
        { stdout: ctx.stdout, stdin: ctx.stdin },
        approvalQuestion(verb, plan, workspace.workspace, ctx.deployment?.name),
      );
      if (!approved) {
        ctx.stdout.write(`\n${verb === 'destroy' ? 'Destroy' : 'Apply'} cancelled: nothing was changed.\n`);
        return 1;
      }
    }

    if (interactive) sink = await inkOutput(ctx, verb, scope);
    const controller = new AbortController();
    const stopInterrupts = onInterrupt(() => {
      controller.abort();
      sink.event({ type: 'interrupted' });
    });
    let result: ApplyResult;
    try {
      result = await applyPlan({
        plan,
        state,
        client,
        parallelism,
        signal: controller.signal,
        onEvent,
        keyRing: stateKeyRing(state, (source) => resolveSecret(source, ctx.env), client),
      });
    } finally {
      stopInterrupts();
    }
    await sink.finish(result);
    ctx.deployment?.note?.(`${result.done.length} of ${plan.steps.length} steps applied, ${result.failed.length} failed`);
    if (saved?.origin.pullRequest && !result.interrupted && result.failed.length === 0)
      await forgetAppliedPlan(ctx, state, saved.origin.pullRequest.number, read!.digest);
    // Said again after the run, where it is read: the plan above scrolled away.
    const warnings = json ? undefined : warningsToRepeat(plan);
    if (warnings) ctx.stdout.write(`${warnings}\n`);
    github?.summary(
      `#### cplane ${verb} result\n\n${read ? `Applied: ${allowanceMarkdown(ctx.env, read.plan, read.digest)}.\n\n` : ''}${summaryLines(
        result,
        verb === 'destroy' ? 'Destroy' : 'Apply',
        scope,
      )
        .map((l) => `- ${markdownText(l.text.trim())}`)
        .join('\n')}\n`,
    );
    return result.interrupted ? 130 : result.failed.length > 0 ? 1 : 0;
  } finally {
    await workspace.close();
  }
}

/**
 * Who allowed a saved plan's apply, as its lock and every state version it saves record it (`cplane state history`):
 * the pull request and commit it was made for, the digest of the very file applied, and who ran it.
 */
function allowance(env: NodeJS.ProcessEnv, plan: Plan, digest: string): string {
  const pr = plan.origin?.pullRequest;
  const actor = env.GITHUB_ACTOR ? `by ${env.GITHUB_ACTOR}` : undefined;
  return safeText([pr ? `PR #${pr.number} at ${pr.commit.slice(0, 12)}` : undefined, `plan ${digest}`, actor].filter(Boolean).join(', '));
}

/** The same for the step summary: the pull request as a link GitHub makes of `#N` (a number from the authenticated plan). */
function allowanceMarkdown(env: NodeJS.ProcessEnv, plan: Plan, digest: string): string {
  const pr = plan.origin?.pullRequest;
  return [
    pr ? `PR #${pr.number} at ${codeSpan(pr.commit.slice(0, 12))}` : undefined,
    `plan ${codeSpan(digest)}`,
    env.GITHUB_ACTOR ? `by ${markdownText(env.GITHUB_ACTOR)}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}

/** An applied plan leaves the open-plan registry (only that plan: a newer one of the pull request stays). */
async function forgetAppliedPlan(ctx: CommandContext, state: StateStore, pr: number, digest: string): Promise<void> {
  await state.openPlans?.forget(pr, digest).catch((error: unknown) => {
    ctx.stderr.write(
      `Warning: the plan of PR #${pr} could not be removed from the open plans of ${safeText(state.path)} (${safeText(error instanceof Error ? error.message : String(error))}).\n`,
    );
  });
}

/**
 * What an earlier run left in the journal: shown, then resent with its saved keys before anything is planned
 * (apply and reconcile). Refuses a journal that holds writes its address's kind never sends, and stops when
 * a resend cannot be confirmed.
 */
export async function finishJournal(input: {
  state: Parameters<typeof resendJournal>[0]['state'];
  client: Parameters<typeof resendJournal>[0]['client'];
  onEvent: (event: ApplyEvent) => void;
  verb: string;
  json: boolean;
  color: boolean;
  stdout: NodeJS.WritableStream;
  text: (message: string) => void;
}) {
  const { state, client, onEvent, verb, json } = input;
  // The store authenticated every entry; one its address's kind never sends is refused all the same.
  const foreign = foreignPendingWrites(state.data);
  if (foreign.length > 0) {
    throw new AbortError(
      `The journal of ${state.path} holds ${foreign.length} pending write(s) that their address's kind never sends: ${foreign.join('; ')}. Nothing was sent.`,
      'Restore the state from a copy you trust, then run the command again.',
    );
  }
  // Shown before they are resent, and so before any approval is asked (their own lines follow).
  const pending = pendingWritesOf(state.data);
  if (pending.length > 0 && !json) input.stdout.write(renderPendingWritesText(pending, { color: input.color }));
  const recovery = await resendJournal({ state, client, onEvent });
  const unconfirmed = recovery.failed.filter((f) => f.kept);
  if (unconfirmed.length > 0) {
    throw new AbortError(
      `${unconfirmed.length} write(s) left by an earlier run could not be confirmed (${unconfirmed.map((f) => `${f.address}: ${f.reason}`).join('; ')}).`,
      `They stay in the journal and are resent with their saved keys; run \`cplane ${verb}\` again once the API answers.`,
    );
  }
  if (recovery.dropped.length > 0) {
    input.text(
      `${recovery.dropped.length} pending write(s) were older than the API's 24 h idempotency window and were dropped; the refresh below reconciles them.`,
    );
  }
  return recovery;
}

/** The plan's warnings (its notices of severity warning), said again where an apply's output ends; undefined without any. */
function warningsToRepeat(plan: Plan): string | undefined {
  const lines = noticeLines(
    plan.notices?.filter((n) => n.severity === 'warning'),
    painter(false),
  );
  return lines.length > 0 ? lines.join('\n').trimEnd() : undefined;
}

/** The approval question, naming the account (name and id) and the workspace the writes go to. */
export function approvalQuestion(verb: Verb, plan: Plan, workspace: string, deployment?: string): string {
  const where = `${deployment !== undefined ? `deployment ${deployment}, ` : ''}account ${accountLabel(plan)}, workspace ${workspace}`;
  return `${verb === 'destroy' ? 'Do you really want to destroy the objects above' : 'Do you want to perform these actions'} in ${where}?`;
}

/** The fresh plan: a saved offboarding plan (`cplane access offboard`) is made again as one, for its user. */
const planAgain = (input: MakePlanInput, saved: Plan | undefined) =>
  saved?.offboard ? makeOffboardingPlan(input, saved.offboard.user) : makePlan(input);

/** First Ctrl-C: `stop` (no new writes; those in flight finish and are saved). Second: exit at once; the journal makes the next run safe. */
export function onInterrupt(stop: () => void): () => void {
  let count = 0;
  const handler = () => {
    count++;
    if (count === 1) stop();
    else process.exit(130);
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

export function clientEventHandler(env: NodeJS.ProcessEnv, forward: (event: ClientEvent) => void): (event: ClientEvent) => void {
  const killAfter = Number(env[KILL_HOOK] ?? 0);
  const killOperation = env[KILL_OPERATION_HOOK];
  let answers = 0;
  return (event) => {
    if (killAfter > 0 && event.type === 'response' && ++answers >= killAfter) process.kill(process.pid, 'SIGKILL');
    if (killOperation && event.type === 'response' && event.operation === killOperation) process.kill(process.pid, 'SIGKILL');
    forward(event);
  };
}

export function jsonOutput(ctx: CommandContext): Output {
  const write = (value: unknown) => ctx.stdout.write(`${JSON.stringify(value)}\n`);
  return {
    event: write,
    text: (message) => write({ type: 'message', message }),
    async finish(result) {
      write({ type: 'summary', ...result });
    },
  };
}

export function plainOutput(ctx: CommandContext, verb: Verb, scope: readonly string[] = []): Output {
  const label = verb === 'destroy' ? 'Destroy' : 'Apply';
  return {
    event: (event) => ctx.stdout.write(`${eventLine(event, verb, scope)}\n`),
    text: (message) => ctx.stdout.write(`${message}\n`),
    async finish(result) {
      ctx.stdout.write(
        `\n${summaryLines(result, label, scope)
          .map((l) => l.text)
          .join('\n')}\n`,
      );
    },
  };
}

async function inkOutput(ctx: CommandContext, verb: Verb, scope: readonly string[]): Promise<Output> {
  const { renderApplyProgress } = await import('../../ui/render-apply.js');
  const view = await renderApplyProgress(ctx.stdout, verb === 'destroy' ? 'Destroy' : 'Apply', scope);
  return { event: (event) => view.onEvent(event), text: () => undefined, finish: (result) => view.finish(result) };
}
