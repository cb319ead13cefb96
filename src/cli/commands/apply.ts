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
import { addressesToHold, blockingFindings, findingLine, hasChanges, type Plan } from '../../plan-model/index.js';
import { accountLabel, noticeLines, renderPendingWritesText, renderPlanMarkdown, renderPlanText } from '../../render/index.js';
import { painter } from '../../paint.js';
import { eventLine } from '../../ui/plain-lines.js';
import { summaryLines } from '../../ui/summary-text.js';
import { hintScope } from '../report/hint-scope.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { givenToken, parseParallelism, tokenVariable } from '../../session/connection.js';
import { githubReporter, type GithubReporter } from '../report/github-flag.js';
import { readingStatus } from '../report/reading-status.js';
import {
  accountNameOf,
  outsideSavedPlan,
  placeholderProblems,
  planOrigin,
  prepareSavedPlan,
  readPlanFileWithDigest,
  trustedPlan,
  type PreparedSavedPlan,
  type SavedPlan,
} from '../../saved-plan/index.js';
import type { Approval } from '../../github/index.js';
import { gateFromComment } from './apply-from-comment.js';
import type { Allowance, StateStore } from '../../state/index.js';
import { refuseTargetWithExclude } from '../target-flags.js';
import { openWorkspace } from '../../session/workspace.js';
import { codeSpan, markdownText, suggestedCommand } from '../../text/escape-for.js';
import { safeText } from '../../text/safe-text.js';
import { writeWeakSecretWarnings } from '../report/weak-secrets.js';
import { wantsDeployments } from '../deployments/choose.js';
import { applyDeployments, isPlanFolder } from '../deployments/apply-all.js';
import { jsonText } from '../../text/json-text.js';

export const applyCommand: CommandModule = {
  async run(ctx) {
    // A `/cplane apply` comment: the gate holds before anything opens, and who allowed it goes with every plan applied.
    if (ctx.values.approvals !== undefined && ctx.values['from-comment'] !== true)
      throw new AbortError('--approvals is the bar of --from-comment: give both, in the issue_comment workflow (docs/ci.md).');
    const fromComment = ctx.values['from-comment'] === true ? await gateFromComment(ctx) : undefined;
    const approval = fromComment?.approval;
    const chosen =
      fromComment?.deployments.length && isPlanFolder(ctx)
        ? { ...ctx, values: { ...ctx.values, deployment: fromComment.deployments } }
        : ctx;
    if (wantsDeployments(chosen) || isPlanFolder(chosen)) return applyDeployments(chosen, (c, verb) => runApply(c, verb, approval));
    return runApply(chosen, 'apply', approval);
  },
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

export async function runApply(ctx: CommandContext, verb: Verb, approval?: Approval): Promise<number> {
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
    return await applyWith(ctx, verb, {
      json,
      interactive,
      parallelism,
      targets,
      exclude,
      replace,
      rewrap,
      planPath,
      planDir,
      github,
      approval,
    });
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
  /** Who allowed it, when a `/cplane apply` comment asked for it (--from-comment). */
  approval: Approval | undefined;
}

/** The saved plan given, read and checked offline, with the digest of its bytes. */
interface SavedInput {
  plan: SavedPlan;
  digest: string;
  prepared: PreparedSavedPlan;
}

/** Where the run's lines go: switched to the live view once approved on a terminal. */
interface ApplyIo {
  sink: Output;
  onEvent: (event: ApplyEvent) => void;
  status: ReturnType<typeof readingStatus>;
  /** Filled once the workspace is open: the words that run a suggested command (a reveal) for this folder and deployment. */
  scope: string[];
}

type Opened = Awaited<ReturnType<typeof openWorkspace>>;

async function applyWith(ctx: CommandContext, verb: Verb, settings: ApplySettings): Promise<number> {
  const saved = await readSaved(ctx, settings);
  refuseServiceAccount(ctx, verb);
  const scope: string[] = [];
  const io: ApplyIo = {
    sink: settings.json ? jsonOutput(ctx) : plainOutput(ctx, verb, scope),
    scope,
    onEvent: (event) => io.sink.event(event),
    // On a terminal, a status line counts the requests while the account is read for the plan (started after the journal's resends).
    status: readingStatus(ctx.stderr, { enabled: false }),
  };
  const workspace = await openForApply(ctx, verb, settings, saved, io);
  scope.push(...hintScope(saved?.prepared.ctx ?? ctx, workspace.dir));
  try {
    const recovery = await finishJournal({
      state: workspace.state,
      client: workspace.client,
      onEvent: io.onEvent,
      verb,
      json: settings.json,
      color: settings.interactive && !ctx.env.NO_COLOR,
      stdout: ctx.stdout,
      text: (message) => io.sink.text(message),
    });
    const plan = await planForApply(ctx, verb, settings, { saved, workspace, resent: recovery.resent, io });
    if (plan === undefined) return 0;
    if (!showPlan(ctx, verb, settings, plan, workspace)) return 0;
    if (!(await approve(ctx, verb, settings, { plan, workspace, saved, io }))) return 1;
    return await perform(ctx, verb, settings, { plan, workspace, saved, io });
  } finally {
    await workspace.close();
  }
}

/** Everything that can be checked without the network is, so an altered or misplaced plan sends no request. */
async function readSaved(ctx: CommandContext, settings: ApplySettings): Promise<SavedInput | undefined> {
  if (!settings.planPath) return undefined;
  const { plan, digest } = await readPlanFileWithDigest(settings.planPath);
  return { plan, digest, prepared: await prepareSavedPlan(ctx, plan, settings.planPath, settings.planDir) };
}

/** Every write is a human-only operation: say so before any request rather than after a refresh. */
function refuseServiceAccount(ctx: CommandContext, verb: Verb): void {
  if (identityOf(givenToken(ctx)) !== 'service_account') return;
  throw new AbortError(
    `cplane ${verb} needs a personal access token (sk-svc-pat-): ${tokenVariable(ctx)} is a Service Account token (sk-svc-sa-), which cannot write; no request was sent.`,
    'Run it with a personal access token; a Service Account token can run `cplane plan`.',
  );
}

function openForApply(ctx: CommandContext, verb: Verb, settings: ApplySettings, saved: SavedInput | undefined, io: ApplyIo) {
  const forward = clientEventHandler(ctx.env, forwardClientEvents(io.onEvent));
  return openWorkspace(saved?.prepared.ctx ?? ctx, {
    lock: true,
    ...(saved ? { savedVariables: saved.plan.origin.variables } : {}),
    // The lock names the pull request whose plan is applied: an apply that finds the state held says which one.
    command: `cplane ${verb}${saved ? ` (${allowance(ctx.env, saved.plan, saved.digest, settings.approval)})` : ''}`,
    ...(saved ? { allowance: allowanceRecord(ctx.env, saved.plan, saved.digest, settings.approval) } : {}),
    // A saved plan's addresses are known before anything is read: the apply holds only them, beside other applies.
    ...(saved ? { addresses: addressesToHold(saved.plan) } : {}),
    onClientEvent: (event) => {
      io.status.onClientEvent(event);
      forward(event);
    },
  });
}

/** The plan to apply: made now, and for a saved plan its reviewed steps where a plan made now has exactly them; undefined when a saved plan has nothing left. */
async function planForApply(
  ctx: CommandContext,
  verb: Verb,
  settings: ApplySettings,
  run: { saved: SavedInput | undefined; workspace: Opened; resent: number; io: ApplyIo },
): Promise<Plan | undefined> {
  const { workspace, io } = run;
  const saved = run.saved?.plan;
  const { state, client } = workspace;
  io.status = readingStatus(ctx.stderr, { enabled: !settings.json && !ctx.env.CI });
  const [fresh, accountName] = await Promise.all([
    planAgain(
      {
        desired: workspace.desired,
        state,
        client,
        account: workspace.account,
        mode: saved ? saved.mode : verb === 'destroy' ? 'destroy' : 'normal',
        targets: saved ? saved.targets : settings.targets,
        exclude: saved ? (saved.exclude ?? []) : settings.exclude,
        replace: saved ? (saved.replace ?? []) : settings.replace,
        rewrap: saved ? false : settings.rewrap,
        parallelism: settings.parallelism,
        env: ctx.env,
      },
      saved,
    ),
    // Read again even for a saved plan: the name shown for approval must not come from a file anyone could edit.
    accountNameOf(client, workspace.account),
  ]).finally(() => io.status.stop());
  const origin = saved ? { ...saved.origin, accountName } : await planOrigin(run.saved?.prepared.ctx ?? ctx, workspace, accountName);
  if (!run.saved) return { ...fresh, origin };
  return reviewedPlan(ctx, settings, { ...run, saved: run.saved, fresh, origin });
}

/** A saved plan's steps, applied as reviewed where the fresh plan has exactly them; what the fresh plan has elsewhere is said and left. */
function reviewedPlan(
  ctx: CommandContext,
  settings: ApplySettings,
  run: { saved: SavedInput; workspace: Opened; resent: number; io: ApplyIo; fresh: Plan; origin: Plan['origin'] },
): Plan | undefined {
  const { saved, workspace, fresh, io } = run;
  const planPath = settings.planPath!;
  const state = workspace.state;
  if (!hasChanges(fresh)) {
    const plan = { ...fresh, origin: run.origin };
    settings.github?.plan(plan, renderPlanMarkdown(plan), { dir: workspace.dir, workspace: workspace.workspace, planFile: planPath });
    io.sink.text(`No changes. The plan ${planPath} has nothing left to do (it was applied already, or the objects already match).`);
    const warnings = warningsToRepeat(fresh);
    if (warnings) io.sink.text(warnings);
    if (settings.json) ctx.stdout.write(`${jsonText({ type: 'plan', changes: false, notices: fresh.notices })}\n`);
    return undefined;
  }
  const changedFiles = saved.prepared.changedFiles;
  const plan = {
    ...trustedPlan(saved.plan, fresh, planPath, {
      count: run.resent,
      idNow: (address) => state.data.resources[address]?.id,
      updatedAt: (address) => state.data.resources[address]?.updatedAt,
      changedFiles,
    }),
    origin: run.origin,
  };
  const elsewhere = outsideSavedPlan(saved.plan, fresh);
  if (changedFiles.length > 0)
    io.sink.text(
      `The configuration changed since the plan was made (${changedFiles.join(', ')}); the plan made now has exactly the saved steps at the plan's ${saved.plan.steps.length} address(es), so they are applied as reviewed.`,
    );
  if (elsewhere.length > 0)
    io.sink.text(
      safeText(
        `Not in this plan, so not applied (left for a plan of its own): ${elsewhere.map((s) => `${s.address} (${s.action})`).join(', ')}.`,
      ),
    );
  return plan;
}

/** Prints the plan (and reports it to GitHub); false when there is nothing to apply. Refuses a plan a mandatory policy blocks. */
function showPlan(ctx: CommandContext, verb: Verb, settings: ApplySettings, plan: Plan, workspace: Opened): boolean {
  const { json, interactive, planPath } = settings;
  // Every plan made here comes from the configuration; this only guards against a bug that would send a secret elsewhere.
  const misplaced = placeholderProblems(plan);
  if (misplaced.length > 0) throw new Error(`the plan puts secrets in fields that are not write-only: ${misplaced.join('; ')}`);
  writeWeakSecretWarnings(ctx);
  if (json)
    ctx.stdout.write(
      `${jsonText({ type: 'plan', changes: hasChanges(plan), summary: plan.summary, steps: plan.steps.length, notices: plan.notices })}\n`,
    );
  else
    ctx.stdout.write(
      renderPlanText(plan, {
        color: interactive && !ctx.env.NO_COLOR,
        ...(ctx.stdout.isTTY && ctx.stdout.columns ? { width: ctx.stdout.columns } : {}),
      }),
    );
  settings.github?.plan(plan, renderPlanMarkdown(plan), {
    dir: workspace.dir,
    workspace: workspace.workspace,
    ...(planPath ? { planFile: planPath } : {}),
  });
  if (!hasChanges(plan)) return false;
  // A mandatory policy finding stops the run before approval and before any write (docs/policies.md).
  const blocking = blockingFindings(plan);
  if (blocking.length > 0) {
    throw new AbortError(
      `cplane ${verb} refused by policy: ${blocking.length} mandatory finding${blocking.length === 1 ? '' : 's'}; nothing was changed:\n${blocking.map((f) => `  - ${findingLine(f)}`).join('\n')}`,
      'Change the configuration so the plan satisfies the policies (docs/policies.md), then plan again.',
    );
  }
  if (!json && !interactive) ctx.stdout.write('\n');
  return true;
}

/** A saved plan was approved when it was reviewed; otherwise --auto-approve, the deployment's autoApprove rule, or the person at the terminal. */
async function approve(
  ctx: CommandContext,
  verb: Verb,
  settings: ApplySettings,
  run: { plan: Plan; workspace: Opened; saved: SavedInput | undefined; io: ApplyIo },
): Promise<boolean> {
  const ruled = !run.saved && ctx.values['auto-approve'] !== true ? ctx.deployment?.autoApprove?.(run.plan) : undefined;
  if (ruled?.approved) run.io.sink.text(`Approved by the autoApprove rule of deployment ${ctx.deployment!.name}.`);
  else if (ruled && !settings.interactive) {
    throw new AbortError(
      `Deployment ${ctx.deployment!.name} needs approval: ${ruled.why ?? 'its autoApprove rule does not hold'}; nothing was changed.`,
      'Run it in a terminal to approve it, or pass --auto-approve.',
    );
  }
  if (run.saved || ctx.values['auto-approve'] === true || ruled?.approved) return true;
  // Ink and React load only here and for the live view: runs without a terminal never need them.
  const { renderConfirm } = await import('../../ui/confirm-prompt.js');
  const approved = await renderConfirm(
    { stdout: ctx.stdout, stdin: ctx.stdin },
    approvalQuestion(verb, run.plan, run.workspace.workspace, ctx.deployment?.name),
  );
  if (!approved) ctx.stdout.write(`\n${verb === 'destroy' ? 'Destroy' : 'Apply'} cancelled: nothing was changed.\n`);
  return approved;
}

/** Applies the plan with the live view (on a terminal), then reports the result and who allowed it. */
async function perform(
  ctx: CommandContext,
  verb: Verb,
  settings: ApplySettings,
  run: { plan: Plan; workspace: Opened; saved: SavedInput | undefined; io: ApplyIo },
): Promise<number> {
  const { plan, workspace, saved, io } = run;
  const { state, client } = workspace;
  if (settings.interactive) io.sink = await inkOutput(ctx, verb, io.scope);
  const result = await applyInterruptibly(ctx, {
    plan,
    state,
    client,
    parallelism: settings.parallelism,
    onEvent: io.onEvent,
    sink: io.sink,
  });
  ctx.deployment?.note?.(`${result.done.length} of ${plan.steps.length} steps applied, ${result.failed.length} failed`);
  if (saved?.plan.origin.pullRequest && !result.interrupted && result.failed.length === 0)
    await forgetAppliedPlan(ctx, state, saved.plan.origin.pullRequest.number, saved.digest);
  // Said again after the run, where it is read: the plan above scrolled away.
  const warnings = settings.json ? undefined : warningsToRepeat(plan);
  if (warnings) ctx.stdout.write(`${warnings}\n`);
  const allowed = saved ? `Applied: ${allowanceMarkdown(ctx.env, saved.plan, saved.digest, settings.approval)}.\n\n` : '';
  const lines = summaryLines(result, verb === 'destroy' ? 'Destroy' : 'Apply', io.scope).map((l) => `- ${markdownText(l.text.trim())}`);
  settings.github?.summary(`#### cplane ${verb} result\n\n${allowed}${lines.join('\n')}\n`);
  return result.interrupted ? 130 : result.failed.length > 0 ? 1 : 0;
}

/** Applies the plan, stopping on SIGINT/SIGTERM (apply, destroy and reconcile), and finishes its output with the result. */
export async function applyInterruptibly(
  ctx: CommandContext,
  run: {
    plan: Plan;
    state: Parameters<typeof applyPlan>[0]['state'];
    client: Parameters<typeof applyPlan>[0]['client'];
    parallelism: number;
    onEvent: (event: ApplyEvent) => void;
    sink: Output;
  },
): Promise<ApplyResult> {
  const { plan, state, client, parallelism, onEvent, sink } = run;
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
  return result;
}

/**
 * Who allowed a saved plan's apply, as its lock and every state version it saves record it (`cplane state history`):
 * the pull request and commit it was made for, the digest of the very file applied, who ran it, and (from a
 * `/cplane apply` comment) who approved the pull request's head commit.
 */
function allowance(env: NodeJS.ProcessEnv, plan: Plan, digest: string, approval: Approval | undefined): string {
  const pr = plan.origin?.pullRequest;
  const actor = approval?.actor ?? env.GITHUB_ACTOR;
  return safeText(
    [
      pr ? `PR #${pr.number} at ${pr.commit.slice(0, 12)}` : undefined,
      `plan ${digest}`,
      actor ? `by ${actor}` : undefined,
      approval ? `approved by ${approverList(approval.approvers, (a) => a)}` : undefined,
    ]
      .filter(Boolean)
      .join(', '),
  );
}

/** The same as data, for the state's history (`cplane state history --json`). */
function allowanceRecord(env: NodeJS.ProcessEnv, plan: Plan, digest: string, approval: Approval | undefined): Allowance {
  const pr = plan.origin?.pullRequest;
  const actor = approval?.actor ?? env.GITHUB_ACTOR;
  return {
    digest,
    ...(pr ? { pullRequest: pr.number, commit: pr.commit } : {}),
    ...(actor ? { actor } : {}),
    ...(approval ? { approvers: approval.approvers } : {}),
  };
}

/** The approvers as the lock and the summary name them: the first 20 (a lock's text stays short), then how many more. */
function approverList(approvers: string[], show: (login: string) => string): string {
  if (approvers.length === 0) return 'nobody (0 approvals required)';
  const more = approvers.length > 20 ? ` and ${approvers.length - 20} more` : '';
  return `${approvers.slice(0, 20).map(show).join(', ')}${more}`;
}

/** The same for the step summary: the pull request as a link GitHub makes of `#N` (a number from the authenticated plan). */
function allowanceMarkdown(env: NodeJS.ProcessEnv, plan: Plan, digest: string, approval: Approval | undefined): string {
  const pr = plan.origin?.pullRequest;
  const actor = approval?.actor ?? env.GITHUB_ACTOR;
  return [
    pr ? `PR #${pr.number} at ${codeSpan(pr.commit.slice(0, 12))}` : undefined,
    `plan ${codeSpan(digest)}`,
    actor ? `by ${markdownText(actor)}` : undefined,
    approval ? `approved by ${approverList(approval.approvers, markdownText)}` : undefined,
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
  // Only this run's addresses: another apply's entries are its writes in flight.
  const mine = { ...state.data, journal: state.data.journal.filter((e) => state.holds(e.address)) };
  const foreign = foreignPendingWrites(mine);
  if (foreign.length > 0) {
    throw new AbortError(
      `The journal of ${state.path} holds ${foreign.length} pending write(s) that their address's kind never sends: ${foreign.join('; ')}. Nothing was sent.`,
      'Restore the state from a copy you trust, then run the command again.',
    );
  }
  // Shown before they are resent, and so before any approval is asked (their own lines follow).
  const pending = pendingWritesOf(mine);
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
  const write = (value: unknown) => ctx.stdout.write(`${jsonText(value)}\n`);
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
