/**
 * `cplane apply --all` (and `--deployment NAME`), and `cplane apply DIR` of the plans `plan --all --out DIR`
 * saved (docs/deployments.md): the deployments applied in waves of `after`. A wave starts only when every
 * deployment it waits for has applied cleanly; the first wave with a failure is the last one run, and the
 * deployments of the later waves are named as not started. Within a wave the deployments apply at once
 * (one after another on a terminal, where each one's approval is asked, naming its account), unless its
 * `autoApprove` rule holds for its plan or --auto-approve is given.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deploymentWaves, type Deployment, type Diagnostic } from '../../config/index.js';
import { formatDiagnostic } from '../../config/index.js';
import { checkPlanMac, readPlanFile, REPLAN, type SavedPlan } from '../../saved-plan/index.js';
import { compileAutoApprove, type AutoApprove } from '../../policy/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { ConfigInvalidError } from '../../session/errors.js';
import { chooseDeployments, deploymentContext, runCaught, sharedLimiter } from './choose.js';
import { writeWeakSecretWarnings } from '../report/weak-secrets.js';
import { exitCodes } from '../exit-codes.js';
import { planFileName } from './plan-all.js';
import { safeText } from '../../text/safe-text.js';
import { jsonText } from '../../text/json-text.js';
import { suggestedCommand } from '../../text/escape-for.js';

type RunApply = (ctx: CommandContext, verb: 'apply') => Promise<number>;

/** A folder of saved plans (`NAME.plan.json`) and no configuration file: what `plan --all --out DIR` writes. */
export function isPlanFolder(ctx: CommandContext): boolean {
  const where = ctx.positionals[0];
  if (where === undefined) return false;
  const path = resolve(ctx.cwd, where);
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) return false;
  const names = readdirSync(path);
  return names.some((n) => n.endsWith('.plan.json')) && !names.some((n) => /\.ya?ml$/i.test(n));
}

interface Outcome {
  deployment: string;
  code: number;
  error?: string;
  /** What its apply came to (`ctx.deployment.note`): the steps done and failed, for the fleet's summary. */
  note?: string;
}

export async function applyDeployments(ctx: CommandContext, runApply: RunApply): Promise<number> {
  const json = ctx.values.json === true;
  const interactive = !json && ctx.values['no-input'] !== true && ctx.stdout.isTTY === true && ctx.stdin.isTTY === true;
  const saved = isPlanFolder(ctx) ? await savedPlans(ctx) : undefined;
  const { chosen } = saved
    ? await chooseDeployments(
        { ...ctx, positionals: [saved.configDir], values: { ...ctx.values, deployment: [...saved.plans.keys()] } },
        'apply',
      )
    : await chooseDeployments(ctx, 'apply');

  const rules = saved ? new Map<string, AutoApprove>() : await autoApproveRules(ctx, chosen);
  if (!saved && ctx.values['auto-approve'] !== true && !interactive) {
    const unruled = chosen.filter((d) => !rules.has(d.name)).map((d) => d.name);
    if (unruled.length > 0) {
      throw new AbortError(
        `${ctx.values.all === true ? 'cplane apply --all' : suggestedCommand(['apply', ...chosen.flatMap((d) => ['--deployment', d.name])])} needs approval for ${unruled.join(', ')} (no autoApprove rule): run it in a terminal, or pass --auto-approve. Nothing was applied.`,
        "A deployment's autoApprove rule (docs/deployments.md) lets it apply without asking when its plan satisfies the rule.",
      );
    }
  }

  const waves = deploymentWaves(chosen);
  const limiter = sharedLimiter(ctx, Math.max(...waves.map((w) => w.length)));
  const say = (line: string) =>
    json ? ctx.stdout.write(`${jsonText({ type: 'deployments', message: line })}\n`) : ctx.stdout.write(`${line}\n`);
  const applied: string[] = [];
  for (const [index, wave] of waves.entries()) {
    say(
      `${json ? '' : '\n'}Wave ${index + 1} of ${waves.length}: ${wave.map((d) => `${d.name} (account ${safeText(d.account)})`).join(', ')}`,
    );
    const outcomes = interactive
      ? await inTurn(wave, (d) =>
          applyOne(ctx, d, { runApply, rule: rules.get(d.name), planPath: saved?.plans.get(d.name), capture: false, json }),
        )
      : await Promise.all(
          wave.map((d) =>
            applyOne(ctx, d, { runApply, rule: rules.get(d.name), planPath: saved?.plans.get(d.name), capture: true, json, limiter }),
          ),
        );
    applied.push(...outcomes.filter((o) => o.code === 0).map((o) => o.deployment));
    const failed = outcomes.filter((o) => o.code !== 0);
    if (failed.length > 0) {
      writeWeakSecretWarnings(ctx);
      const notStarted = waves
        .slice(index + 1)
        .flat()
        .map((d) => d.name);
      // A deployment that failed part-way says how many of its steps were applied: they are, and state holds them.
      const failures = failed
        .map((f) => `${f.deployment}${[f.note, f.error].some(Boolean) ? ` (${[f.note, f.error].filter(Boolean).join(': ')})` : ''}`)
        .join('; ');
      if (json) ctx.stdout.write(`${jsonText({ type: 'deployments', applied, failed: failed.map((f) => f.deployment), notStarted })}\n`);
      else
        ctx.stdout.write(
          `\nDeployments: applied ${applied.length > 0 ? applied.join(', ') : 'none'}; failed ${failures}; not started ${notStarted.length > 0 ? `${notStarted.join(', ')} (they wait for a failed wave)` : 'none'}.\n`,
        );
      return failed.some((f) => f.code === exitCodes.interrupted) ? exitCodes.interrupted : exitCodes.error;
    }
  }
  writeWeakSecretWarnings(ctx);
  if (json) ctx.stdout.write(`${jsonText({ type: 'deployments', applied, failed: [], notStarted: [] })}\n`);
  else ctx.stdout.write(`\nDeployments: all ${applied.length} applied (${applied.join(', ')}).\n`);
  return exitCodes.ok;
}

async function inTurn<T>(items: readonly Deployment[], run: (d: Deployment) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const item of items) out.push(await run(item));
  return out;
}

async function applyOne(
  ctx: CommandContext,
  deployment: Deployment,
  options: {
    runApply: RunApply;
    rule: AutoApprove | undefined;
    planPath: string | undefined;
    capture: boolean;
    json: boolean;
    limiter?: ReturnType<typeof sharedLimiter>;
  },
): Promise<Outcome> {
  const run = deploymentContext(ctx, deployment, { capture: options.capture, ...(options.limiter ? { limiter: options.limiter } : {}) });
  const rule = options.rule;
  if (rule) run.ctx.deployment = { ...run.ctx.deployment!, autoApprove: rule };
  if (options.planPath) run.ctx.positionals = [options.planPath];
  let note: string | undefined;
  run.ctx.deployment = { ...run.ctx.deployment!, note: (words) => (note = words) };
  if (!options.capture && !options.json)
    ctx.stdout.write(`\n=== deployment ${deployment.name} (account ${safeText(deployment.account)}) ===\n\n`);
  const { code, error } = await runCaught(() => options.runApply(run.ctx, 'apply'), ['apply'], run.ctx);
  if (options.capture) {
    const { stdout, stderr } = run.captured();
    if (options.json) {
      for (const line of stdout.split('\n').filter(Boolean)) {
        const parsed = parseJson(line);
        ctx.stdout.write(
          `${jsonText(parsed && typeof parsed === 'object' ? { deployment: deployment.name, ...parsed } : { deployment: deployment.name, text: line })}\n`,
        );
      }
      if (stderr.trim()) ctx.stdout.write(`${jsonText({ deployment: deployment.name, type: 'error', message: stderr.trim() })}\n`);
    } else {
      ctx.stdout.write(`\n=== deployment ${deployment.name} (account ${safeText(deployment.account)}) ===\n\n${stdout}${stderr}`);
    }
  }
  return { deployment: deployment.name, code, ...(error ? { error } : {}), ...(note ? { note } : {}) };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** Every chosen deployment's autoApprove rule, compiled; a rule that does not compile stops the run before any wave. */
async function autoApproveRules(ctx: CommandContext, chosen: readonly Deployment[]): Promise<Map<string, AutoApprove>> {
  const rules = new Map<string, AutoApprove>();
  const problems: Diagnostic[] = [];
  for (const d of chosen) {
    if (!d.autoApprove) continue;
    const compiled = await compileAutoApprove(d.name, d.autoApprove.rule, d.autoApprove.source);
    if (typeof compiled === 'function') rules.set(d.name, compiled);
    else problems.push(compiled);
  }
  if (problems.length > 0) {
    const color = ctx.stderr.isTTY === true && !ctx.env.NO_COLOR;
    throw new ConfigInvalidError(
      `The configuration has ${problems.length} error(s):\n\n${problems.map((d) => formatDiagnostic(d, { color })).join('\n')}`,
      'Fix the autoApprove rule (docs/deployments.md); nothing was applied.',
      problems,
    );
  }
  return rules;
}

/**
 * The plans of a folder `plan --all --out DIR` wrote (or the folders of its shards, put together), by deployment,
 * and the configuration folder they were made from. Every plan's MAC is checked before any wave starts (each is
 * checked again when it is applied), and the folder must hold a plan for every deployment its run chose (the
 * `fleet` each plan records under its MAC): a deleted plan would let the deployments after it apply without
 * their `after` gate. Plans of two runs (other deployments chosen, other configuration files) are refused too.
 */
async function savedPlans(ctx: CommandContext): Promise<{ configDir: string; plans: Map<string, string> }> {
  const folder = resolve(ctx.cwd, ctx.positionals[0]!);
  const plans = new Map<string, string>();
  let configDir: string | undefined;
  let first: { path: string; origin: SavedPlan['origin'] & { fleet: string[] } } | undefined;
  const refuse = (why: string) =>
    new AbortError(
      `The plans in ${folder} ${why}. Nothing was applied.`,
      `Apply only the whole folder one \`cplane plan --all --out DIR\` wrote. ${REPLAN}`,
    );
  for (const name of readdirSync(folder)
    .filter((n) => n.endsWith('.plan.json'))
    .sort()) {
    const path = join(folder, name);
    const plan = await readPlanFile(path);
    checkPlanMac(ctx.env, plan, path);
    const { deployment, fleet } = plan.origin;
    if (deployment === undefined)
      throw new AbortError(
        `${path} is the plan of no deployment: it was not made by \`cplane plan --all --out DIR\`.`,
        `Apply it alone with \`cplane apply ${path}\`, or move it out of ${folder}.`,
      );
    const dir = resolve(ctx.cwd, plan.origin.configDir);
    if (configDir !== undefined && configDir !== dir)
      throw new AbortError(
        `The plans in ${folder} were made from two configurations: ${configDir} and ${dir}.`,
        "Keep one configuration's plans per folder.",
      );
    configDir = dir;
    if (!fleet)
      throw refuse(`do not say which deployments their run chose (${name} was made by an older cplane, or by \`plan --out FILE\`)`);
    if (
      first &&
      (first.origin.fleet.join('\n') !== fleet.join('\n') || JSON.stringify(first.origin.files) !== JSON.stringify(plan.origin.files))
    ) {
      throw refuse(
        `were made by two runs of \`cplane plan --all\` (${first.path} and ${path}: other deployments chosen, or other configuration files)`,
      );
    }
    first ??= { path, origin: { ...plan.origin, fleet } };
    plans.set(deployment, path);
  }
  const missing = first?.origin.fleet.filter((name) => !plans.has(name)) ?? [];
  if (missing.length > 0) {
    throw refuse(
      `lack the plan${missing.length === 1 ? '' : 's'} of ${missing.join(', ')} (${missing.map(planFileName).join(', ')}), which their run chose: the deployments after ${missing.length === 1 ? 'it' : 'them'} would apply without waiting for ${missing.length === 1 ? 'it' : 'them'}`,
    );
  }
  return { configDir: configDir!, plans: onlyNamed(plans, ctx.values.deployment, folder) };
}

/** `--deployment NAME` with a folder of plans (a `/cplane apply NAME` comment): only those plans, each named one required. */
function onlyNamed(plans: Map<string, string>, named: unknown, folder: string): Map<string, string> {
  if (!Array.isArray(named) || named.length === 0) return plans;
  const unknown = named.filter((name) => !plans.has(String(name)));
  if (unknown.length > 0)
    throw new AbortError(
      `The plans in ${folder} have no plan for ${unknown.join(', ')}. Nothing was applied.`,
      `They are for ${[...plans.keys()].join(', ')}.`,
    );
  return new Map([...plans].filter(([name]) => named.includes(name)));
}
