/**
 * `cplane show PLANFILE [--json]`: a plan saved by `cplane plan --out`, as `cplane plan` printed it, or its JSON
 * (schema/plan.schema.json) for OPA, cost tools and reviews. The file crosses a trust boundary: it is read no
 * further than the plan file limit, checked against the schema, and its MAC is checked when the state key is at
 * hand; a plan that fails the check is refused, and one that cannot be checked is shown marked unverified.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderPlanJson, renderPlanText } from '../../render/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../session/errors.js';
import { exitCodes } from '../exit-codes.js';
import { readPlanToShow, type SavedPlan } from '../../saved-plan/index.js';

export const showCommand: CommandModule = {
  async run(ctx) {
    const { plan, unverified } = await planFileArgument(ctx, ctx.positionals, 'show PLANFILE [--json]');
    if (unverified) ctx.stderr.write(`${unverified}\n`);
    const { auth: _auth, ...shown } = plan;
    if (ctx.values.json) ctx.stdout.write(renderPlanJson(shown));
    else ctx.stdout.write(renderPlanText(shown, { color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR, ...(ctx.stdout.isTTY && ctx.stdout.columns ? { width: ctx.stdout.columns } : {}) }));
    return exitCodes.ok;
  },
};

/** The one saved plan a command is given (`show PLANFILE`, `graph --plan PLANFILE`), read to be shown. */
export async function planFileArgument(ctx: CommandContext, args: readonly string[], usage: string): Promise<{ plan: SavedPlan; unverified?: string }> {
  if (args.length !== 1) throw new AbortError(args.length === 0 ? 'No plan file given.' : `Unexpected arguments: ${args.slice(1).join(' ')}.`, `Usage: cplane ${usage} (a file written by \`cplane plan --out FILE\`)`);
  const path = resolve(ctx.cwd, args[0]!);
  const found = statSync(path, { throwIfNoEntry: false });
  if (!found?.isFile()) throw new AbortError(`${args[0]} is not a file${found?.isDirectory() ? ' but a folder' : ''}.`, 'Give the path of a plan written by `cplane plan --out FILE`.');
  return readPlanToShow(ctx.env, path);
}
