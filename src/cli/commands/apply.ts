/**
 * `cplane apply [dir | PLANFILE]`: finish what an earlier run left in the
 * journal, plan, ask for approval, then perform the plan and show it happen:
 * the Ink view on a terminal, one plain line per event otherwise, NDJSON with
 * --json. `cplane destroy` (destroy.ts) is the same run with the destroy plan.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { identityOf, type ClientEvent } from '../../api/client.js';
import { applyPlan, forwardClientEvents, resendJournal, type ApplyEvent, type ApplyResult } from '../../applier/index.js';
import { resolveSecret } from '../../config/index.js';
import { hasChanges, makePlan, readPlanFile } from '../../planner/index.js';
import type { Plan } from '../../plan-model/index.js';
import { renderPlanText } from '../../render/index.js';
import { eventLine, renderApplyProgress, renderConfirm, summaryLines } from '../../ui/index.js';
import type { Command, CommandContext, OptionSpec } from '../command.js';
import { AbortError } from '../errors.js';
import { parseParallelism } from '../connection.js';
import { openWorkspace, workspaceHelp, workspaceOptions } from '../workspace.js';

export const applyOptions: OptionSpec = {
  ...workspaceOptions,
  'auto-approve': { type: 'boolean' },
  target: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'no-input': { type: 'boolean' },
};

export const applyHelp = [
  '--auto-approve      do not ask for approval (needed without a terminal)',
  '--target ADDRESS    limit the run to ADDRESS and what it depends on (repeatable)',
  '--json              one JSON object per event (NDJSON); never prompts',
  '--no-input          never prompt; plain lines instead of the interactive view',
  ...workspaceHelp,
];

export const applyCommand: Command = {
  name: ['apply'],
  summary: 'Perform the changes of a plan (resends interrupted writes first)',
  usage: 'apply [dir | PLANFILE] [--auto-approve] [--target ADDRESS ...] [--parallelism N] [--json] [--no-input] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
  help: [...applyHelp, 'PLANFILE            a plan saved by `cplane plan --out FILE`: applied as it is (no prompt) if nothing changed since'],
  options: applyOptions,
  run: (ctx) => runApply(ctx, 'apply'),
};

/** Test hook: `CPLANE_TEST_KILL_AFTER_REQUESTS=k` kills the process with SIGKILL right after the k-th API answer arrives, before it is recorded. */
const KILL_HOOK = 'CPLANE_TEST_KILL_AFTER_REQUESTS';

type Verb = 'apply' | 'destroy';

interface Output {
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
  const [where, ...extra] = ctx.positionals;
  if (extra.length > 0) throw new AbortError(`Unexpected arguments: ${extra.join(' ')}.`, `Usage: cplane ${verb} [${verb === 'apply' ? 'dir | PLANFILE' : 'dir'}] [options]`);

  const planPath = where !== undefined && statSync(resolve(ctx.cwd, where), { throwIfNoEntry: false })?.isFile() ? resolve(ctx.cwd, where) : undefined;
  if (planPath && verb === 'destroy') throw new AbortError('cplane destroy takes a configuration folder, not a plan file.', `To apply a saved destroy plan, run \`cplane apply ${where}\`.`);
  if (planPath && targets.length > 0) throw new AbortError('--target cannot be used with a saved plan: the plan already says what it changes.', 'Make a new plan with `cplane plan --target ... --out FILE`.');
  // A saved plan was reviewed when it was made: applying it is the approval (as in Terraform).
  if (!planPath && ctx.values['auto-approve'] !== true && !interactive) {
    throw new AbortError(`cplane ${verb} needs approval: run it in a terminal, or pass --auto-approve.`);
  }
  const saved = planPath ? await readPlanFile(planPath) : undefined;
  if (saved && ctx.values.account !== undefined && ctx.values.account !== saved.account) {
    throw new AbortError(`The plan ${planPath} was made for account ${saved.account}, not ${String(ctx.values.account)}.`, 'Apply it without --account, or make a new plan for this account.');
  }

  // Every write is a human-only operation: say so before any request rather than after a refresh.
  if (identityOf(String(ctx.values.token ?? ctx.env.CPLANE_TOKEN ?? '')) === 'service_account') {
    throw new AbortError(`cplane ${verb} needs a personal access token (sk-svc-pat-): CPLANE_TOKEN is a Service Account token (sk-svc-sa-), which cannot write; no request was sent.`, 'Run it with a personal access token; a Service Account token can run `cplane plan`.');
  }
  // On a terminal, journal resends and notices before the live view are plain lines too.
  let sink: Output = json ? jsonOutput(ctx) : plainOutput(ctx, verb);
  const onEvent = (event: ApplyEvent) => sink.event(event);
  const workspace = await openWorkspace(saved ? { ...ctx, positionals: [saved.configDir], values: { ...ctx.values, account: saved.account } } : ctx, {
    lock: true,
    command: `cplane ${verb}`,
    onClientEvent: clientEventHandler(ctx.env, forwardClientEvents(onEvent)),
  });
  const { state, client } = workspace;
  try {
    const recovery = await resendJournal({ state, client, onEvent });
    const unconfirmed = recovery.failed.filter((f) => f.kept);
    if (unconfirmed.length > 0) {
      throw new AbortError(
        `${unconfirmed.length} write(s) left by an earlier run could not be confirmed (${unconfirmed.map((f) => `${f.address}: ${f.reason}`).join('; ')}).`,
        `They stay in the journal and are resent with their saved keys; run \`cplane ${verb}\` again once the API answers.`,
      );
    }
    if (recovery.dropped.length > 0) {
      sink.text(`${recovery.dropped.length} pending write(s) were older than the API's 24 h idempotency window and were dropped; the refresh below reconciles them.`);
    }

    const mode = saved ? saved.mode : verb === 'destroy' ? 'destroy' : 'normal';
    const fresh = await makePlan({ desired: workspace.desired, state, client, account: workspace.account, mode, targets: saved ? saved.targets : targets, parallelism, env: ctx.env });
    let plan: Plan = fresh;
    if (saved) {
      if (!hasChanges(fresh)) {
        sink.text(`No changes. The plan ${planPath} has nothing left to do (it was applied already, or the objects already match).`);
        if (json) ctx.stdout.write(`${JSON.stringify({ type: 'plan', changes: false })}\n`);
        return 0;
      }
      refuseStalePlan(saved, fresh, planPath!);
      plan = saved;
    }
    if (json) ctx.stdout.write(`${JSON.stringify({ type: 'plan', changes: hasChanges(plan), summary: plan.summary, steps: plan.steps.length })}\n`);
    else ctx.stdout.write(renderPlanText(plan, { color: interactive && !ctx.env.NO_COLOR, width: ctx.stdout.columns ?? 80 }));
    if (!hasChanges(plan)) return 0;
    if (!json && !interactive) ctx.stdout.write('\n');

    if (!saved && ctx.values['auto-approve'] !== true) {
      const approved = await renderConfirm(
        { stdout: ctx.stdout, stdin: ctx.stdin },
        verb === 'destroy' ? 'Do you really want to destroy the objects above?' : 'Do you want to perform these actions?',
      );
      if (!approved) {
        ctx.stdout.write(`\n${verb === 'destroy' ? 'Destroy' : 'Apply'} cancelled: nothing was changed.\n`);
        return 1;
      }
    }

    if (interactive) sink = inkOutput(ctx, verb);
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
        resolveSecret: (source) => resolveSecret(source, ctx.env),
      });
    } finally {
      stopInterrupts();
    }
    await sink.finish(result);
    return result.interrupted ? 130 : result.failed.length > 0 ? 1 : 0;
  } finally {
    await workspace.close();
  }
}

function refuseStalePlan(saved: Plan, fresh: Plan, path: string): void {
  const config = saved.digest.config !== fresh.digest.config;
  const live = saved.digest.live !== fresh.digest.live;
  if (!config && !live) return;
  const files = changedKeys(saved.digest.files, fresh.digest.files);
  const objects = changedKeys(saved.digest.objects, fresh.digest.objects);
  const parts = [
    ...(config ? [files.length > 0 ? `the configuration has (${files.join(', ')})` : 'the configuration has'] : []),
    ...(live ? [objects.length > 0 ? `the live objects of ${objects.join(', ')} have` : 'the live objects have'] : []),
  ];
  throw new AbortError(
    `The saved plan ${path} is stale: ${parts.join(', and ')} changed since it was made, so it may no longer do what was reviewed. Nothing was applied.`,
    'Make a new plan with `cplane plan --out FILE`, review it, and apply that.',
  );
}

/** Keys whose digest differs between two maps (present in either); empty when a map is missing (an older plan). */
function changedKeys(before: Record<string, string> | undefined, after: Record<string, string> | undefined): string[] {
  if (!before || !after) return [];
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => before[key] !== after[key]).sort();
}

/** First Ctrl-C: `stop` (no new writes; those in flight finish and are saved). Second: exit at once; the journal makes the next run safe. */
function onInterrupt(stop: () => void): () => void {
  let count = 0;
  const handler = () => {
    count++;
    if (count === 1) stop();
    else process.exit(130);
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}

function clientEventHandler(env: NodeJS.ProcessEnv, forward: (event: ClientEvent) => void): (event: ClientEvent) => void {
  const killAfter = Number(env[KILL_HOOK] ?? 0);
  let answers = 0;
  return (event) => {
    if (killAfter > 0 && event.type === 'response' && ++answers >= killAfter) process.kill(process.pid, 'SIGKILL');
    forward(event);
  };
}

function jsonOutput(ctx: CommandContext): Output {
  const write = (value: unknown) => ctx.stdout.write(`${JSON.stringify(value)}\n`);
  return {
    event: write,
    text: (message) => write({ type: 'message', message }),
    async finish(result) {
      write({ type: 'summary', ...result });
    },
  };
}

function plainOutput(ctx: CommandContext, verb: Verb): Output {
  const label = verb === 'destroy' ? 'Destroy' : 'Apply';
  return {
    event: (event) => ctx.stdout.write(`${eventLine(event, verb)}\n`),
    text: (message) => ctx.stdout.write(`${message}\n`),
    async finish(result) {
      ctx.stdout.write(`\n${summaryLines(result, label).map((l) => l.text).join('\n')}\n`);
    },
  };
}

function inkOutput(ctx: CommandContext, verb: Verb): Output {
  const view = renderApplyProgress(ctx.stdout, verb === 'destroy' ? 'Destroy' : 'Apply');
  return { event: (event) => view.onEvent(event), text: () => undefined, finish: (result) => view.finish(result) };
}
