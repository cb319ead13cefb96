/**
 * `--github` on validate, plan and apply: what each command reports to GitHub
 * Actions (src/github/actions.ts does the writing). Failures become `::error`
 * annotations on the configuration lines and a short note in the step summary.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { formatGithub } from '../config/index.js';
import { appendStepSummary, errorAnnotation, writeStepOutputs } from '../github/index.js';
import { hasChanges, type Plan } from '../plan-model/index.js';
import { PlanError } from '../planner/errors.js';
import type { CommandContext } from '../session/command-context.js';
import { ConfigInvalidError } from '../session/errors.js';
import { codeBlock } from '../text/escape-for.js';

export interface GithubReporter {
  /** A plan was made: its Markdown goes to the step summary and a file (for the pull-request comment), its counts to the step outputs. */
  plan(plan: Plan, markdown: string, options: { dir: string; workspace: string; planFile?: string }): void;
  /** Markdown appended to the step summary as it is (a validation or apply result). */
  summary(markdown: string): void;
  /** The command failed: annotations for what has a place in the configuration, and a note in the step summary. */
  failed(error: unknown, verb: string): void;
}

export function githubReporter(ctx: CommandContext): GithubReporter | undefined {
  if (ctx.values.github !== true) return undefined;
  const { env } = ctx;
  return {
    plan(plan, markdown, options) {
      const where = options.planFile ? `in the job log above and in the saved plan \`${options.planFile}\`` : 'in the job log above';
      appendStepSummary(env, markdown, where);
      const markdownFile = join(env.RUNNER_TEMP || tmpdir(), `cplane-plan-${process.pid}-${Date.now()}.md`);
      writeFileSync(markdownFile, markdown, { mode: 0o600 });
      const root = env.GITHUB_WORKSPACE || ctx.cwd;
      writeStepOutputs(env, {
        has_changes: String(hasChanges(plan)),
        add: String(plan.summary.add),
        change: String(plan.summary.change),
        replace: String(plan.summary.replace),
        remove: String(plan.summary.remove),
        plan_file: options.planFile ?? '',
        markdown_file: markdownFile,
        // One pull-request comment per configuration, account and workspace: one folder planned with
        // `--var-file vars/staging.yaml` and `--var-file vars/prod.yaml` names two accounts, so two comments.
        comment_key: `${relative(root, options.dir).split('\\').join('/') || '.'}:${plan.account}@${options.workspace}`,
      });
    },
    summary(markdown) {
      appendStepSummary(env, markdown, 'in the job log above');
    },
    failed(error, verb) {
      const lines: string[] = [];
      if (error instanceof ConfigInvalidError) lines.push(...error.diagnostics.map(formatGithub));
      else if (error instanceof PlanError) lines.push(...error.diagnostics.map(formatGithub));
      else lines.push(errorAnnotation(error instanceof Error ? error.message : String(error), undefined, `cplane ${verb} failed`));
      for (const line of lines) ctx.stdout.write(`${line}\n`);
      const message = error instanceof Error ? error.message : String(error);
      appendStepSummary(env, `#### cplane ${verb} failed\n\n${codeBlock(message.split(/\r?\n/))}\n`, 'in the job log above');
    },
  };
}
