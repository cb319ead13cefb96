/**
 * `cplane drift [dir]`: a scheduled job's drift check. It makes a
 * refresh-only plan (which never reads a secret source: a write-only value
 * whose source is absent is reported as not checked), prints only what
 * changed outside cplane since the last apply, and exits 2 when something
 * did (0: no drift, 3: no drift in what could be read, but something could
 * not be read). With --github it writes the report to the step summary and
 * the step outputs the action's drift-issue step reads.
 */
import { dueNotices } from '../../plan-model/index.js';
import { renderDriftJson, renderDriftMarkdown, renderDriftText } from '../../render/index.js';
import type { CommandModule } from '../../session/command-context.js';
import { parseParallelism } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { exitCodes } from '../exit-codes.js';
import { openToRead, readPlan } from './plan.js';
import { hintScope } from '../report/hint-scope.js';

export const driftCommand: CommandModule = {
  async run(ctx) {
    const { values } = ctx;
    if (values.json && values.markdown) throw new AbortError('--json and --markdown cannot be used together.', 'Pick one output format.');
    const parallelism = parseParallelism(values.parallelism);
    const opened = await openToRead(ctx, 'drift');
    const { github, workspace } = opened;
    try {
      const plan = await readPlan(ctx, opened, 'drift', { mode: 'refresh-only', parallelism });
      if (typeof plan === 'number') return plan;
      const markdown = renderDriftMarkdown(plan);
      if (values.json) ctx.stdout.write(renderDriftJson(plan));
      else if (values.markdown) ctx.stdout.write(markdown);
      else
        ctx.stdout.write(
          renderDriftText(plan, {
            color: ctx.stdout.isTTY === true && !ctx.env.NO_COLOR,
            scope: hintScope(ctx, workspace.dir),
            ...(ctx.stdout.isTTY && ctx.stdout.columns ? { width: ctx.stdout.columns } : {}),
          }),
        );
      github?.drift(plan, markdown, { dir: workspace.dir, workspace: workspace.workspace });
      if (plan.drift.length > 0 || dueNotices(plan).length > 0) return exitCodes.changes;
      return plan.unreadable.length > 0 ? exitCodes.incomplete : exitCodes.ok;
    } finally {
      await workspace.close();
    }
  },
};
