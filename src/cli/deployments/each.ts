/**
 * `--all` and `--deployment NAME` on every command that reads a configuration (docs/deployments.md, "Every
 * command"): the deployments are chosen as `plan --all` chooses them (deployments.ts), and the command runs once
 * per deployment with that deployment's context (its account, workspace, variables, token), the runs at once and
 * sharing one limit of requests in flight. Their outputs are combined in the format the command was asked for: a
 * section per deployment in text and Markdown, `{ deployments: [{ deployment, account, exitCode, result }] }` in JSON,
 * a `deployment` column in CSV; exit codes combine as `plan --all`'s. One deployment that fails never stops the others.
 *
 * One `--deployment NAME` alone runs the command as that deployment, its output as without deployments
 * (`CPLANE_WRITER_KEY=$(cplane writer-key --deployment prod)`). With `--github`, each run writes its own step
 * outputs and summary, then combined here: `issues` lists one drift or reconcile issue per deployment for the
 * action's issue step (github/drift-issue-main.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Deployment } from '../../config/index.js';
import { appendStepSummary, readStepOutputs, writeStepOutputs } from '../../github/index.js';
import { csvCell } from '../../render/index.js';
import type { CommandContext, CommandModule } from '../../session/command-context.js';
import { AbortError } from '../../errors.js';
import { safeText } from '../../text/safe-text.js';
import { suggestedCommand } from '../../text/escape-for.js';
import type { Command } from '../command.js';
import { chooseDeployments, deploymentContext, runCaught, sharedLimiter } from './choose.js';
import { combinedExitCode, exitCodes } from '../exit-codes.js';
import { planFileName } from './plan-all.js';
import { jsonText } from '../../text/json-text.js';

/** What one deployment's run left. */
export interface Ran {
  deployment: Pick<Deployment, 'name' | 'account'>;
  code: number;
  error?: string;
  stdout: string;
  stderr: string;
  /** What the command said its run came to (`ctx.deployment.note`), for the fleet's summary. */
  note?: string;
  /** Its step outputs, with --github. */
  outputs?: Record<string, string>;
  summary?: string;
}

type Format = 'text' | 'markdown' | 'json' | 'csv';

/** The output format the command was asked for, from the flags the commands use for it. */
export function formatOf(values: CommandContext['values']): Format {
  if (values.json === true || values.format === 'json') return 'json';
  if (values.format === 'csv') return 'csv';
  return values.markdown === true || values.format === 'markdown' ? 'markdown' : 'text';
}

export async function runForDeployments(ctx: CommandContext, command: Command, module: CommandModule): Promise<number> {
  const spec = command.deployments!;
  const words = command.name;
  const named = (ctx.values.deployment as string[] | undefined) ?? [];
  // The arguments after `--` are another program's (`cplane run ... -- COMMAND`): never the folder.
  const own = ctx.afterTerminator ? ctx.positionals.slice(0, ctx.positionals.length - ctx.afterTerminator.length) : ctx.positionals;
  const { chosen } = await chooseDeployments(ctx, words.join(' '), { dir: (spec.dir ?? ((p) => p[0]))(own) });
  const alone = ctx.values.all !== true && named.length === 1;
  if (spec.runs === 'one' && !alone) {
    throw new AbortError(
      `cplane ${words.join(' ')} runs for one deployment at a time: give one --deployment NAME${ctx.values.all === true ? ' instead of --all' : ''}.`,
      `For example \`${suggestedCommand([...words, ...own, '--deployment', chosen[0]?.name ?? 'NAME'])}\`.`,
    );
  }
  const outDir = spec.outFolder && typeof ctx.values.out === 'string' ? resolve(ctx.cwd, ctx.values.out) : undefined;
  if (outDir) mkdirSync(outDir, { recursive: true });
  const outOf = (d: Deployment) => (outDir ? { out: join(outDir, planFileName(d.name)) } : {});
  // Each plan saved in the folder records every deployment of the run, so `apply DIR` refuses the folder when one is missing.
  const fleet = outDir ? { fleet: chosen.map((d) => d.name) } : {};
  if (alone) return module.run(deploymentContext(ctx, chosen[0]!, { capture: false, values: outOf(chosen[0]!), ...fleet }).ctx);

  const limiter = sharedLimiter(ctx, chosen.length);
  // Each run that writes (reconcile) listens for Ctrl-C to stop its own apply: one listener per deployment is expected.
  process.setMaxListeners(Math.max(process.getMaxListeners(), chosen.length + 10));
  const github = ctx.values.github === true ? mkdtempSync(join(ctx.env.RUNNER_TEMP || tmpdir(), 'cplane-deployments-')) : undefined;
  const runOne = async (deployment: Deployment): Promise<Ran> => {
    // With --github, each run's outputs and summary go to files of its own, combined below in declaration order.
    const files = github
      ? { GITHUB_OUTPUT: join(github, `${deployment.name}.outputs`), GITHUB_STEP_SUMMARY: join(github, `${deployment.name}.md`) }
      : undefined;
    if (files) for (const file of Object.values(files)) writeFileSync(file, '', { mode: 0o600 });
    const run = deploymentContext(ctx, deployment, {
      limiter,
      capture: true,
      values: outOf(deployment),
      ...fleet,
      ...(files ? { env: files } : {}),
    });
    let note: string | undefined;
    run.ctx.deployment = { ...run.ctx.deployment!, note: (words) => (note = words) };
    const { code, error } = await runCaught(() => module.run(run.ctx), words, run.ctx);
    return {
      deployment,
      code,
      ...(error ? { error } : {}),
      ...(note !== undefined ? { note } : {}),
      ...run.captured(),
      ...(files
        ? { outputs: readStepOutputs(readFileSync(files.GITHUB_OUTPUT, 'utf8')), summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') }
        : {}),
    };
  };
  let ran: Ran[];
  try {
    ran = spec.inTurn ? await inTurn(chosen, runOne) : await Promise.all(chosen.map(runOne));
  } finally {
    if (github) rmSync(github, { recursive: true, force: true });
  }

  writeCombined(ctx, formatOf(ctx.values), ran);
  if (github) reportToGithub(ctx, ran);
  if (outDir)
    ctx.stderr.write(
      `Saved ${ran.filter((r) => r.code === exitCodes.ok).length} plan(s) to ${outDir}; review them, then apply exactly these plans with \`${suggestedCommand(['apply', String(ctx.values.out)])}\`.\n`,
    );
  return combinedExitCode(ran.map((r) => r.code));
}

async function inTurn<T>(items: readonly Deployment[], run: (d: Deployment) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const item of items) out.push(await run(item));
  return out;
}

const heading = (r: Ran) => `deployment ${r.deployment.name} (account ${safeText(r.deployment.account)})`;

/** The runs' outputs as one: sections (and the fleet's lines) in text, one JSON document, one CSV table. */
export function writeCombined(ctx: CommandContext, format: Format, ran: readonly Ran[]): void {
  if (format === 'json') {
    const deployments = ran.map((r) => ({
      deployment: r.deployment.name,
      account: r.deployment.account,
      exitCode: r.code,
      ...parsedOutput(r.stdout),
      ...(r.error ? { error: r.error } : {}),
    }));
    ctx.stdout.write(`${jsonText({ deployments }, 2)}\n`);
    passStderr(ctx, ran);
  } else if (format === 'csv') {
    ctx.stdout.write(combinedCsv(ran));
    passStderr(ctx, ran);
  } else {
    for (const r of ran)
      ctx.stdout.write(
        `${format === 'markdown' ? `## ${heading(r)}` : `=== ${heading(r)} ===`}\n\n${r.stdout}${r.stderr}${r.stdout || r.stderr ? '\n' : ''}`,
      );
    if (format === 'text') ctx.stdout.write(fleetSummary(ran));
  }
}

/** What the runs amount to, one line per deployment: the fleet at a glance after the sections. */
function fleetSummary(ran: readonly Ran[]): string {
  const width = Math.max(...ran.map((r) => r.deployment.name.length));
  const code = (r: Ran) =>
    r.error
      ? `failed: ${r.error}`
      : r.code === exitCodes.ok
        ? 'ok'
        : r.code === exitCodes.error
          ? 'failed (see its section)'
          : `exit ${r.code}`;
  const result = (r: Ran) => (r.note !== undefined && !r.error ? `${code(r)}: ${r.note}` : code(r));
  return `Deployments:\n${ran.map((r) => `  ${r.deployment.name.padEnd(width)}  ${safeText(r.deployment.account)}  ${safeText(result(r))}`).join('\n')}\n`;
}

/**
 * A run's JSON output, under one key whatever the command: `result`, the document it printed as it prints it without
 * deployments; `events` for several documents (NDJSON: reconcile's plan, then its apply's events); `output`, text.
 */
function parsedOutput(stdout: string): Record<string, unknown> {
  if (stdout.trim() === '') return {};
  const one = parseJson(stdout);
  if (one !== undefined) return { result: one };
  const lines = stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(parseJson);
  return lines.every((l) => l !== undefined) ? { events: lines } : { output: stdout };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What a run said on stderr (warnings, its error), each line naming its deployment, so machine output stays one document. */
function passStderr(ctx: CommandContext, ran: readonly Ran[]): void {
  for (const r of ran) for (const line of r.stderr.split('\n').filter(Boolean)) ctx.stderr.write(`${r.deployment.name}: ${line}\n`);
}

/** The runs' CSV as one table: the first header with a `deployment` column in front, then every run's rows. */
function combinedCsv(ran: readonly Ran[]): string {
  let header: string | undefined;
  const rows: string[] = [];
  for (const r of ran) {
    const [first, ...rest] = csvRecords(r.stdout);
    if (first === undefined) continue;
    header ??= `deployment,${first}`;
    rows.push(...rest.map((row) => `${csvCell(r.deployment.name)},${row}`));
  }
  return header === undefined ? '' : [header, ...rows].map((line) => `${line}\r\n`).join('');
}

/** RFC 4180 records: split at line ends outside quotes (a quoted cell may hold a line break). */
function csvRecords(text: string): string[] {
  const records: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    if (!quoted && (c === '\n' || (c === '\r' && text[i + 1] === '\n'))) {
      if (c === '\r') i++;
      records.push(current);
      current = '';
    } else current += c;
  }
  if (current !== '') records.push(current);
  return records;
}

/**
 * The runs' step outputs and summaries as one step's: the summaries in declaration order; `deployments` (each run's
 * outputs); `issues`, one drift or reconcile issue per deployment for the action's issue step; `has_drift`,
 * `has_withheld` and `has_changes` true when any run's is; `markdown_file`, every run's report in one file.
 */
function reportToGithub(ctx: CommandContext, ran: readonly Ran[]): void {
  const { env } = ctx;
  for (const r of ran) {
    if (r.summary) appendStepSummary(env, `### ${heading(r)}\n\n${r.summary}`, 'in the job log above');
  }
  const issues = ran.flatMap((r) => {
    const o = r.outputs ?? {};
    if (!o.issue_key || !o.markdown_file) return [];
    return [
      {
        deployment: r.deployment.name,
        key: o.issue_key,
        topic: o.issue_topic || 'drift',
        open: o.has_drift === 'true' || o.has_withheld === 'true',
        markdownFile: o.markdown_file,
      },
    ];
  });
  const markdownFiles = ran.flatMap((r) => (r.outputs?.markdown_file ? [r.outputs.markdown_file] : []));
  const combined = join(env.RUNNER_TEMP || tmpdir(), `cplane-${process.pid}-${Date.now()}-deployments.md`);
  writeFileSync(combined, markdownFiles.map((file) => readFileSync(file, 'utf8')).join('\n'), { mode: 0o600 });
  const any = (name: string) => String(ran.some((r) => r.outputs?.[name] === 'true'));
  writeStepOutputs(env, {
    deployments: JSON.stringify(
      ran.map((r) => ({ deployment: r.deployment.name, account: r.deployment.account, exitCode: r.code, outputs: r.outputs ?? {} })),
    ),
    issues: JSON.stringify(issues),
    has_drift: any('has_drift'),
    has_withheld: any('has_withheld'),
    has_changes: any('has_changes'),
    markdown_file: markdownFiles.length > 0 ? combined : '',
  });
}
