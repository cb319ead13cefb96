/**
 * `cplane show PLANFILE [--json]` (or a folder of them, `show DIR`): a plan saved by `cplane plan --out`, as `cplane plan` printed it, or its JSON
 * (schema/plan.schema.json) for OPA, cost tools and reviews. The file crosses a trust boundary: it is read no
 * further than the plan file limit, checked against the schema, and its MAC is checked when the state key is at
 * hand; a plan that fails the check is refused, and one that cannot be checked is shown marked unverified.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderPlanJson, renderPlanText } from '../../render/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { combinedExitCode, exitCodes } from '../exit-codes.js';
import { readPlanToShow, type SavedPlan } from '../../saved-plan/index.js';
import { describeError } from '../report/describe-error.js';
import { writeCombined, type Ran } from '../deployments/each.js';

export const showCommand: CommandModule = {
  async run(ctx) {
    if (ctx.positionals.length === 1 && statSync(resolve(ctx.cwd, ctx.positionals[0]!), { throwIfNoEntry: false })?.isDirectory())
      return showFolder(ctx, resolve(ctx.cwd, ctx.positionals[0]!));
    const { plan, unverified } = await planFileArgument(ctx, ctx.positionals, 'show PLANFILE [--json]');
    if (unverified) ctx.stderr.write(`${unverified}\n`);
    ctx.stdout.write(shownPlan(ctx, plan));
    return exitCodes.ok;
  },
};

/** A saved plan as `plan` printed it, or its JSON; its MAC is never shown. */
function shownPlan(ctx: CommandContext, plan: SavedPlan): string {
  const { auth: _auth, ...shown } = plan;
  if (ctx.values.json) return renderPlanJson(shown);
  return renderPlanText(shown, {
    color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR,
    ...(ctx.stdout.isTTY && ctx.stdout.columns ? { width: ctx.stdout.columns } : {}),
  });
}

/**
 * `show DIR`: the plans `plan --all --out DIR` (or `access offboard --all --out DIR`) saved, one section per deployment
 * as `plan --all` shows them (one JSON document with --json), each read and checked as `show PLANFILE` checks one: a
 * plan that fails its check is that deployment's error, and the others are shown.
 */
async function showFolder(ctx: CommandContext, folder: string): Promise<number> {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.plan.json'))
    .sort();
  if (files.length === 0)
    throw new AbortError(
      `${folder} holds no saved plans (NAME.plan.json).`,
      'Give a folder written by `cplane plan --all --out DIR`, or one plan file.',
    );
  const ran: Ran[] = [];
  for (const name of files) {
    const fallback = { name: name.slice(0, -'.plan.json'.length), account: '' };
    try {
      const { plan, unverified } = await readPlanToShow(ctx.env, join(folder, name));
      ran.push({
        deployment: { name: plan.origin.deployment ?? fallback.name, account: plan.account },
        code: exitCodes.ok,
        stdout: shownPlan(ctx, plan),
        stderr: unverified ? `${unverified}\n` : '',
      });
    } catch (error) {
      const { message } = describeError(error, { name: ['show'] });
      ran.push({
        deployment: fallback,
        code: exitCodes.error,
        error: message.replace(/^Error: /, '').split('\n')[0]!,
        stdout: '',
        stderr: message,
      });
    }
  }
  writeCombined(ctx, ctx.values.json ? 'json' : 'text', ran);
  return combinedExitCode(ran.map((r) => r.code));
}

/** The one saved plan a command is given (`show PLANFILE`, `graph --plan PLANFILE`), read to be shown. */
export async function planFileArgument(
  ctx: CommandContext,
  args: readonly string[],
  usage: string,
): Promise<{ plan: SavedPlan; unverified?: string }> {
  if (args.length !== 1)
    throw new AbortError(
      args.length === 0 ? 'No plan file given.' : `Unexpected arguments: ${args.slice(1).join(' ')}.`,
      `Usage: cplane ${usage} (a file written by \`cplane plan --out FILE\`)`,
    );
  const path = resolve(ctx.cwd, args[0]!);
  const found = statSync(path, { throwIfNoEntry: false });
  if (!found?.isFile())
    throw new AbortError(
      `${args[0]} is not a file${found?.isDirectory() ? ' but a folder' : ''}.`,
      'Give the path of a plan written by `cplane plan --out FILE`.',
    );
  return readPlanToShow(ctx.env, path);
}
