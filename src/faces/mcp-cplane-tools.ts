/**
 * cplane's own MCP tools on the configuration folder given at start-up:
 * `cplane_validate`, `cplane_plan` and `cplane_apply`. Each runs the very
 * command a person runs (`cplane validate --json`, `cplane plan --out FILE
 * --json`, `cplane apply FILE --json`) with its output captured, so the tools
 * cannot drift from the CLI: a plan is saved to a file known by its plan id,
 * and applying it re-plans first and refuses a stale plan exactly as
 * `cplane apply PLANFILE` does. The commands come from the CLI as loaders
 * (src/cli/commands/mcp.ts: this folder sits below the CLI), called on first
 * use, so the server answers `initialize` without loading the planner and
 * the applier.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { CommandContext, CommandModule } from '../session/command-context.js';
import { AbortError } from '../errors.js';
import type { McpTool, ToolOutcome } from './mcp-tools.js';

/** The cplane commands the tools run, each loaded when its tool is first called. */
export interface CplaneCommands {
  validate(): Promise<CommandModule>;
  plan(): Promise<CommandModule>;
  apply(): Promise<CommandModule>;
}

export interface CplaneToolsOptions {
  /** Absolute configuration folder. */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Connection flags `cplane mcp` was started with (--base-url, --token, --account), passed on to each command. */
  connection: CommandContext['values'];
  commands: CplaneCommands;
}

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one cplane command in-process with its output captured; an abort becomes its message on stderr. */
async function runCommand(command: CommandModule, options: CplaneToolsOptions, positionals: string[], values: CommandContext['values']): Promise<Captured> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on('data', (chunk: Buffer) => chunks.stdout.push(chunk));
  stderr.on('data', (chunk: Buffer) => chunks.stderr.push(chunk));
  let code: number;
  try {
    code = await command.run({
      positionals,
      values: { ...options.connection, ...values },
      env: options.env,
      cwd: options.dir,
      stdout,
      stderr,
      // stdin carries the MCP protocol: the command gets an empty one (and so never prompts).
      stdin: Readable.from([]),
    });
  } catch (error) {
    if (!(error instanceof AbortError) && !(error instanceof Error && ['ApiError', 'NetworkError', 'IdentityRefusedError'].includes(error.name))) throw error;
    stderr.write(`${error.message}${error instanceof AbortError && error.hint ? `\n${error.hint}` : ''}\n`);
    code = 1;
  }
  return { code, stdout: Buffer.concat(chunks.stdout).toString('utf8'), stderr: Buffer.concat(chunks.stderr).toString('utf8') };
}

const noInput = { type: 'object' as const, properties: {}, additionalProperties: false };

export function cplaneTools(options: CplaneToolsOptions): { tools: McpTool[]; close(): void } {
  const plansDir = mkdtempSync(join(tmpdir(), 'cplane-mcp-plans-'));
  const plans = new Map<string, string>();

  const tools: McpTool[] = [
    {
      name: 'cplane_validate',
      description: `Check the cplane configuration in ${options.dir} offline (no API call) and report every problem with file:line:col.`,
      inputSchema: noInput,
      annotations: { title: 'Validate the configuration', readOnlyHint: true, openWorldHint: false },
      async run(): Promise<ToolOutcome> {
        const run = await runCommand(await options.commands.validate(), options, [options.dir], { json: true });
        if (run.stdout === '') return { isError: true, parts: [run.stderr.trim()] };
        return { isError: run.code !== 0, parts: [JSON.parse(run.stdout) as unknown] };
      },
    },
    {
      name: 'cplane_plan',
      description:
        `Refresh the live account and show what applying the configuration in ${options.dir} would change, as plan JSON. ` +
        'Returns a planId: pass it to cplane_apply to perform exactly this plan. Changes nothing.',
      inputSchema: {
        type: 'object',
        properties: { destroy: { type: 'boolean', description: 'Plan the removal of everything in state instead.' } },
        additionalProperties: false,
      },
      annotations: { title: 'Plan', readOnlyHint: true, openWorldHint: false },
      async run(args): Promise<ToolOutcome> {
        const planId = `plan-${randomBytes(6).toString('hex')}`;
        const file = join(plansDir, `${planId}.json`);
        const run = await runCommand(await options.commands.plan(), options, [options.dir], { out: file, json: true, ...(args.destroy === true ? { destroy: true } : {}) });
        if (run.code !== 0) return { isError: true, parts: [run.stderr.trim()] };
        plans.set(planId, file);
        return { parts: [{ planId, plan: JSON.parse(run.stdout) as unknown }] };
      },
    },
    {
      name: 'cplane_apply',
      description:
        'Perform a plan made by cplane_plan, given its planId. It re-plans first: when the configuration or the live objects changed since the plan was made, ' +
        'the plan is stale and is refused (nothing is changed); make a new plan. Returns the events and the summary of the run.',
      inputSchema: { type: 'object', properties: { planId: { type: 'string', description: 'The planId returned by cplane_plan.' } }, required: ['planId'], additionalProperties: false },
      annotations: { title: 'Apply a plan', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      async run(args): Promise<ToolOutcome> {
        const file = typeof args.planId === 'string' ? plans.get(args.planId) : undefined;
        if (!file) return { isError: true, parts: [`Unknown planId ${JSON.stringify(args.planId)}: call cplane_plan and pass the planId it returns.`] };
        const run = await runCommand(await options.commands.apply(), options, [file], { json: true });
        const events = run.stdout
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as unknown);
        if (run.code !== 0 && events.length === 0) return { isError: true, parts: [run.stderr.trim()] };
        return { isError: run.code !== 0, parts: [{ applied: run.code === 0, events }] };
      },
    },
  ];
  return { tools, close: () => rmSync(plansDir, { recursive: true, force: true }) };
}
