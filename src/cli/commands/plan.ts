/**
 * `cplane plan [dir]`: refresh the live account, compare it with the
 * configuration and state, and show what apply would do. Reads state without
 * taking its lock (a plan changes nothing). `--out FILE` saves the plan for
 * `cplane apply FILE`; `--json` and `--markdown` print it for machines and for
 * pull-request comments; `--detailed-exitcode` exits 2 when there are changes
 * and 3 when the plan is incomplete (cli/exit-codes.ts).
 */
import { resolve } from 'node:path';
import { isIncomplete } from '../../plan-model/index.js';
import { hasChanges, makePlan, writePlanFile } from '../../planner/index.js';
import { renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../render/index.js';
import type { Command } from '../command.js';
import { parseParallelism } from '../connection.js';
import { AbortError } from '../errors.js';
import { exitCodes } from '../exit-codes.js';
import { reportPlanProblems } from '../plan-problems.js';
import { openWorkspace, workspaceHelp, workspaceOptions } from '../workspace.js';

export const planCommand: Command = {
  name: ['plan'],
  summary: 'Show what apply would change, and why',
  usage:
    'plan [dir] [--out FILE] [--target ADDRESS ...] [--refresh-only] [--destroy] [--detailed-exitcode] [--parallelism N] [--json | --markdown] [--format github] [--var NAME=VALUE ...] [--var-file FILE ...] [--account ID] [--state PATH]',
  help: [
    '--out FILE          save the plan as JSON for `cplane apply FILE`',
    '--target ADDRESS    plan only ADDRESS and what it depends on (repeatable)',
    '--refresh-only      plan no writes: only show changes made outside cplane (applying it records them in state)',
    '--destroy           plan the removal of everything in state',
    '--detailed-exitcode exit 2 when the plan has changes, 3 when it is incomplete (0: none, 1: error)',
    '--format github     print the problems of a plan that cannot be made as GitHub Actions annotations',
    '--json              print the plan as JSON (schema/plan.schema.json)',
    '--markdown          print a Markdown summary for a pull-request comment',
    ...workspaceHelp,
  ],
  options: {
    ...workspaceOptions,
    out: { type: 'string' },
    target: { type: 'string', multiple: true },
    'refresh-only': { type: 'boolean' },
    destroy: { type: 'boolean' },
    'detailed-exitcode': { type: 'boolean' },
    json: { type: 'boolean' },
    markdown: { type: 'boolean' },
    format: { type: 'string' },
  },

  async run(ctx) {
    const { values } = ctx;
    if (values.json && values.markdown) throw new AbortError('--json and --markdown cannot be used together.', 'Pick one output format.');
    if (values['refresh-only'] && values.destroy) throw new AbortError('--refresh-only and --destroy cannot be used together.', 'A refresh-only plan never removes anything; run them separately.');
    const parallelism = parseParallelism(values.parallelism);
    const mode = values.destroy ? 'destroy' : values['refresh-only'] ? 'refresh-only' : 'normal';
    const targets = (values.target as string[] | undefined) ?? [];

    const workspace = await openWorkspace(ctx, { lock: false, command: 'cplane plan' });
    try {
      const made = await makePlan({ desired: workspace.desired, state: workspace.state, client: workspace.client, account: workspace.account, mode, targets, parallelism, env: ctx.env }).catch(
        (error: unknown) => reportPlanProblems(error, ctx, { json: values.json === true, format: values.format as string | undefined }),
      );
      if (typeof made === 'number') return made;
      const plan = made;
      if (typeof values.out === 'string') {
        const path = resolve(ctx.cwd, values.out);
        await writePlanFile(path, plan);
        if (!values.json && !values.markdown) ctx.stderr.write(`Saved the plan to ${path}; apply exactly this plan with \`cplane apply ${values.out}\`.\n`);
      }
      if (values.json) ctx.stdout.write(renderPlanJson(plan));
      else if (values.markdown) ctx.stdout.write(renderPlanMarkdown(plan));
      else ctx.stdout.write(renderPlanText(plan, { color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR, width: ctx.stdout.columns ?? 80 }));
      if (!values['detailed-exitcode']) return exitCodes.ok;
      return isIncomplete(plan) ? exitCodes.incomplete : hasChanges(plan) ? exitCodes.changes : exitCodes.ok;
    } finally {
      await workspace.close();
    }
  },
};
