/**
 * `cplane access offboard USER [dir] --out FILE`: the plan that takes one user's access away (docs/access.md,
 * "Offboarding"): the user's shares revoked, the generated values the user could read (directly or through a
 * group) rotated, and the values from a source listed for their owners. It is a plan, saved and authenticated
 * as `plan --out` saves one, so a person reviews it and `cplane apply FILE` applies it. It never edits the
 * configuration: it prints the lines to remove from it. access/offboard.ts decides; the plan's text shows.
 */
import { resolve } from 'node:path';
import { makeOffboardingPlan } from '../../access/index.js';
import { renderPlanJson, renderPlanText } from '../../render/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { parseParallelism } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { openWorkspace } from '../../session/workspace.js';
import { suggestedCommand } from '../../text/escape-for.js';
import { safeName } from '../../text/safe-text.js';
import { accountNameOf, planOrigin, withMac, writePlanFile } from '../../saved-plan/index.js';
import { exitCodes } from '../exit-codes.js';
import { reportPlanProblems } from '../report/plan-problems.js';

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The command as `cplane access offboard` runs it (the access dispatcher calls this with the words after `offboard`). */
export async function runOffboard(ctx: CommandContext): Promise<number> {
  const [user, ...rest] = ctx.positionals;
  if (user === undefined || user === '')
    throw new AbortError(
      'cplane access offboard needs the user to offboard: their name in directory.users.',
      'Run `cplane access offboard USER [dir] --out FILE`.',
    );
  const parallelism = parseParallelism(ctx.values.parallelism);
  const workspace = await openWorkspace({ ...ctx, positionals: rest }, { lock: false, command: 'cplane access offboard' });
  try {
    // An unknown user is refused before the account is read (makeOffboardingPlan), naming the closest declared users.
    const made = await Promise.all([
      makeOffboardingPlan(
        {
          desired: workspace.desired,
          state: workspace.state,
          client: workspace.client,
          account: workspace.account,
          parallelism,
          env: ctx.env,
        },
        user,
      ),
      accountNameOf(workspace.client, workspace.account),
    ]).catch((error: unknown) => reportPlanProblems(error, ctx, { json: ctx.values.json === true }));
    if (typeof made === 'number') return made;
    const plan = { ...made[0], origin: await planOrigin(ctx, workspace, made[1]) };
    const offboard = plan.offboard;
    // Run for a fleet (--all), each account's line in the summary says what this plan takes away there.
    if (offboard) {
      const owners = offboard.records.filter((r) => r.value === 'owner').length;
      ctx.deployment?.note?.(
        `${plural(offboard.revoked.length, 'share')} revoked, ${plural(offboard.records.filter((r) => r.value === 'rotated').length, 'value')} rotated${owners > 0 ? `, ${plural(owners, 'value')} for its owner to give again` : ''}`,
      );
    }
    const out = typeof ctx.values.out === 'string' ? resolve(ctx.cwd, ctx.values.out) : undefined;
    if (out) {
      // The whole file is authenticated (the offboarded user and the rotations with it): apply refuses any edit.
      await writePlanFile(out, withMac(plan, workspace.state));
    }
    if (ctx.values.json) {
      ctx.stdout.write(renderPlanJson(plan));
      return exitCodes.ok;
    }
    ctx.stdout.write(
      renderPlanText(plan, {
        color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR,
        ...(ctx.stdout.isTTY && ctx.stdout.columns ? { width: ctx.stdout.columns } : {}),
      }),
    );
    ctx.stderr.write(
      out
        ? `Saved the plan that offboards ${safeName(user)} to ${out}; review it, then apply exactly this plan with \`${suggestedCommand(['apply', String(ctx.values.out)])}\`.\n`
        : `This plan was not saved: make it again with --out FILE, review it, and apply it with \`cplane apply FILE\`.\n`,
    );
    return exitCodes.ok;
  } finally {
    await workspace.close();
  }
}

export const accessOffboardCommand: CommandModule = { run: runOffboard };
