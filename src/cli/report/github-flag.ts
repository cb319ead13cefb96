/**
 * `--github` on validate, plan and apply: what each command reports to GitHub
 * Actions (src/github/actions.ts does the writing). Failures become `::error`
 * annotations on the configuration lines and a short note in the step summary.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { formatGithub } from '../../config/index.js';
import { annotation, appendStepSummary, errorAnnotation, writeStepOutputs } from '../../github/index.js';
import { blockingFindings, dueNotices, findingLine, hasChanges, type Plan, type PolicyFinding } from '../../plan-model/index.js';
import { safeText } from '../../text/safe-text.js';
import { PlanError } from '../../planner/errors.js';
import type { CommandContext } from '../../session/command-context.js';
import { ConfigInvalidError } from '../../session/errors.js';
import { codeBlock } from '../../text/escape-for.js';

export interface GithubReporter {
  /** A plan was made: its Markdown goes to the step summary and a file (for the pull-request comment), its counts to the step outputs. */
  plan(plan: Plan, markdown: string, options: { dir: string; workspace: string; planFile?: string }): void;
  /** A drift check was made: its report goes to the step summary and a file (for the drift issue), its result to the step outputs. */
  drift(plan: Plan, markdown: string, options: { dir: string; workspace: string }): void;
  /** A reconcile ran: its report goes to the step summary and a file (for its issue), what waits for a person to the step outputs. */
  reconcile(plan: Plan, markdown: string, options: { dir: string; workspace: string }): void;
  /** Markdown appended to the step summary as it is (a validation or apply result). */
  summary(markdown: string): void;
  /** The command failed: annotations for what has a place in the configuration, and a note in the step summary. */
  failed(error: unknown, verb: string): void;
}

/** A policy finding as an annotation on the resource's line: an error for a mandatory policy, a warning for an advisory one. */
export function policyAnnotation(f: PolicyFinding): string {
  return annotation(f.level === 'mandatory' ? 'error' : 'warning', safeText(findingLine(f)), f.at, `Policy ${f.policy} (${f.level})`);
}

/**
 * The Markdown in a file of the runner's temporary folder, for the comment and issue steps. The file is in a
 * folder of its own made by mkdtemp (0700, a name no one can guess), and is created, never opened if it is
 * there (`wx`): outside Actions the temporary folder is shared, and a name known in advance could be a link
 * another user planted there.
 */
export function writeMarkdownFile(env: NodeJS.ProcessEnv, markdown: string): string {
  const file = join(mkdtempSync(join(env.RUNNER_TEMP || tmpdir(), 'cplane-')), 'report.md');
  writeFileSync(file, markdown, { mode: 0o600, flag: 'wx' });
  return file;
}

export function githubReporter(ctx: CommandContext): GithubReporter | undefined {
  if (ctx.values.github !== true) return undefined;
  const { env } = ctx;
  const markdownFileOf = (markdown: string) => writeMarkdownFile(env, markdown);
  /** `infra/prod:<account>@default`: the configuration folder (relative to the checkout), the account and the workspace. */
  const keyOf = (dir: string, account: string, workspace: string) =>
    `${
      relative(env.GITHUB_WORKSPACE || ctx.cwd, dir)
        .split('\\')
        .join('/') || '.'
    }:${account}@${workspace}`;
  return {
    plan(plan, markdown, options) {
      const where = options.planFile ? `in the job log above and in the saved plan \`${options.planFile}\`` : 'in the job log above';
      appendStepSummary(env, markdown, where);
      // Policy findings as annotations on the resource's line: errors for mandatory ones, warnings for advisory ones.
      for (const f of plan.policies?.findings ?? []) ctx.stdout.write(`${policyAnnotation(f)}\n`);
      const markdownFile = markdownFileOf(markdown);
      writeStepOutputs(env, {
        has_changes: String(hasChanges(plan)),
        policy_failed: String(blockingFindings(plan).length > 0),
        add: String(plan.summary.add),
        change: String(plan.summary.change),
        replace: String(plan.summary.replace),
        remove: String(plan.summary.remove),
        plan_file: options.planFile ?? '',
        markdown_file: markdownFile,
        // One pull-request comment per configuration, account and workspace: one folder planned with
        // `--var-file vars/staging.yaml` and `--var-file vars/prod.yaml` names two accounts, so two comments.
        comment_key: keyOf(options.dir, plan.account, options.workspace),
      });
    },
    drift(plan, markdown, options) {
      appendStepSummary(env, markdown, 'in the job log above');
      writeStepOutputs(env, {
        has_drift: String(plan.drift.length > 0),
        drift_count: String(plan.drift.length),
        due_count: String(dueNotices(plan).length),
        markdown_file: markdownFileOf(markdown),
        // One drift issue per configuration, account and workspace.
        issue_key: keyOf(options.dir, plan.account, options.workspace),
      });
    },
    reconcile(plan, markdown, options) {
      appendStepSummary(env, markdown, 'in the job log above');
      writeStepOutputs(env, {
        has_withheld: String((plan.withheld?.length ?? 0) > 0),
        withheld_count: String(plan.withheld?.length ?? 0),
        applied_count: String(plan.steps.length),
        markdown_file: markdownFileOf(markdown),
        // One issue per configuration, account and workspace, as the drift issue (its topic keeps them apart).
        issue_key: keyOf(options.dir, plan.account, options.workspace),
        issue_topic: 'reconcile',
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
