/**
 * A plan that cannot be made ends with diagnostics: printed like
 * configuration errors (`file:line:col: error: ...`), as JSON for `--json`
 * (with their ranges), or as GitHub annotations on the lines for
 * `--format github`.
 */
import { formatDiagnostic, formatGithub } from '../../config/index.js';
import { PlanError } from '../../planner/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { exitCodes } from '../exit-codes.js';
import { jsonText } from '../../text/json-text.js';

/** Prints a PlanError's diagnostics in the requested form and returns the exit code; anything else is thrown on. */
export function reportPlanProblems(error: unknown, ctx: CommandContext, output: { json: boolean; format?: string }): number {
  if (!(error instanceof PlanError)) throw error;
  if (output.json) {
    ctx.stdout.write(`${jsonText({ planned: false, diagnostics: error.diagnostics }, 2)}\n`);
  } else if (output.format === 'github') {
    for (const d of error.diagnostics) ctx.stdout.write(`${formatGithub(d)}\n`);
  } else {
    const color = ctx.stderr.isTTY === true && !ctx.env.NO_COLOR;
    ctx.stderr.write(
      `Error: the plan cannot be made:\n\n${error.diagnostics.map((d) => formatDiagnostic(d, { color })).join('\n\n')}\n\n${error.hint ?? ''}\n`,
    );
  }
  return exitCodes.error;
}
