/**
 * cplane's own MCP tools on the configuration folder given at start-up:
 * `cplane_validate`, `cplane_plan` and, only when the server was started
 * with `--allow-apply`, `cplane_apply` (without it an assistant could change
 * the account with no person in the loop). Each runs the very command a person
 * runs (`cplane validate --json`, `cplane plan --out FILE --json`, `cplane
 * apply FILE --json`) with its output captured, so the tools cannot drift from
 * the CLI: their inputs become the same flags (--var, --var-file, --workspace,
 * --target), a plan is saved to a file known by its plan id, and applying it
 * re-plans first and refuses a stale plan exactly as `cplane apply PLANFILE`
 * does. The commands come from the CLI as loaders (src/cli/commands/mcp.ts:
 * this folder sits below the CLI), called on first use, so the server answers
 * `initialize` without loading the planner and the applier.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { CommandContext, CommandModule } from '../session/command-context.js';
import { AbortError } from '../errors.js';
import { ConfigInvalidError } from '../session/errors.js';
import { checkPathInside, pathBounds, PATH_HINT, refusalWords } from '../config/index.js';
import type { Diagnostic } from '../config/types.js';
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
  /** `cplane mcp --allow-apply`: offer cplane_apply. */
  allowApply: boolean;
  commands: CplaneCommands;
}

/** What calling cplane_apply on a server started without --allow-apply answers. */
export const applyNotAllowed =
  'cplane_apply is not offered: this MCP server was started without --allow-apply, so applying a plan is left to a person. ' +
  'Show the plan to the user and let them run `cplane apply` themselves, or ask them to restart the server with `cplane mcp --allow-apply` (see docs/mcp.md).';

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
  /** The configuration's problems, when it could not be loaded. */
  diagnostics?: Diagnostic[];
}

// The tools' inputs, named like the CLI's flags they become. One schema is both what the tool lists and what a call is checked against.
const variablesInput = {
  variables: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      description: "Values of the configuration's variables by name, like `--var NAME=VALUE`; they win over varFiles.",
    }),
  ),
  varFiles: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      description:
        'YAML files of variable values, relative to the configuration folder, like `--var-file FILE`; each must be inside the configuration folder or its Git work tree.',
    }),
  ),
};
const validateInput = Type.Object(variablesInput, { additionalProperties: false });
const planInput = Type.Object(
  {
    ...variablesInput,
    workspace: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'The workspace whose state to plan against, like `--workspace NAME` (default: $CPLANE_WORKSPACE, else `default`).',
      }),
    ),
    targets: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Plan only these addresses and what they depend on, like `--target ADDRESS`.',
      }),
    ),
    exclude: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'Plan all but these addresses (or module.NAME) and what depends on them, like `--exclude ADDRESS`; not with targets.',
      }),
    ),
    destroy: Type.Optional(Type.Boolean({ description: 'Plan the removal of everything in state instead.' })),
    deployment: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A deployment of the configuration's deployments: (docs/deployments.md): plan its account, workspace and variables, like `cplane plan --deployment NAME`. Required when the configuration has deployments; not with workspace.",
      }),
    ),
  },
  { additionalProperties: false },
);
type PlanInput = Static<typeof planInput>;

const schemaOf = (input: TObject): McpTool['inputSchema'] => JSON.parse(JSON.stringify(input)) as McpTool['inputSchema'];

/** Problems of a call's arguments against its input schema, one line each (values are never quoted). */
async function inputProblems(input: TObject, args: Record<string, unknown>): Promise<string[]> {
  const { Value } = await import('@sinclair/typebox/value');
  return [...Value.Errors(input, args)].map((error) => `${error.path || 'input'}: ${error.message}`);
}

/** The tool's arguments as the command's flags: var files first, then variables, so variables win (as on a command line that gives them last). */
function flagsOf(args: PlanInput): CommandContext['values'] {
  return {
    ...(args.varFiles?.length ? { 'var-file': args.varFiles } : {}),
    ...(args.variables ? { var: Object.entries(args.variables).map(([name, value]) => `${name}=${String(value)}`) } : {}),
    ...(args.workspace !== undefined ? { workspace: args.workspace } : {}),
    ...(args.targets?.length ? { target: args.targets } : {}),
    ...(args.exclude?.length ? { exclude: args.exclude } : {}),
    ...(args.destroy === true ? { destroy: true } : {}),
  };
}

/**
 * The configuration's problems for the assistant, told in the tools' terms: a variable without a value is
 * given with `variables` or `varFiles`, not with the command-line flags the CLI's message names.
 */
function inToolTerms(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) => {
    const name = d.code === 'variable_unset' ? /^Variable "([^"]+)"/.exec(d.summary)?.[1] : undefined;
    return name === undefined
      ? d
      : {
          ...d,
          detail: `Give it a value in this tool's "variables" input ({"${name}": VALUE}), in a file listed in "varFiles", or with the environment variable CPLANE_VAR_${name} of the MCP server.`,
        };
  });
}

/**
 * The tool's `varFiles` that lead outside the configuration folder (or its Git work tree), each as an error: an
 * assistant's input is not reviewed, and a var file is read and may be quoted back (config/files/path-bounds.ts).
 */
async function varFilesOutside(args: PlanInput, dir: string): Promise<ToolOutcome | undefined> {
  if (!args.varFiles?.length) return undefined;
  const bounds = await pathBounds(dir);
  const diagnostics: Diagnostic[] = [];
  for (const [i, path] of args.varFiles.entries()) {
    const checked = await checkPathInside(resolve(dir, path), bounds);
    if ('refused' in checked) {
      diagnostics.push({
        severity: 'error',
        code: 'path_outside',
        summary: `varFiles[${i}] "${path}" ${refusalWords(checked.refused, bounds)}: it is not read`,
        detail: PATH_HINT,
      });
    }
  }
  return diagnostics.length > 0 ? { isError: true, parts: [{ planned: false, diagnostics }] } : undefined;
}

/** A failed run as the tool's error: the configuration's problems when it has some, else what the command said. */
function failure(run: Captured): ToolOutcome {
  if (run.diagnostics) return { isError: true, parts: [{ planned: false, diagnostics: inToolTerms(run.diagnostics) }] };
  // `plan --json` prints a plan that cannot be made as { planned: false, diagnostics } on stdout.
  if (run.stdout.trim().startsWith('{')) {
    const report = JSON.parse(run.stdout) as { diagnostics?: Diagnostic[] };
    return { isError: true, parts: [report.diagnostics ? { ...report, diagnostics: inToolTerms(report.diagnostics) } : report] };
  }
  return { isError: true, parts: [run.stderr.trim()] };
}

/** Runs one cplane command in-process with its output captured; an abort becomes its message on stderr. */
async function runCommand(
  command: CommandModule,
  options: CplaneToolsOptions,
  positionals: string[],
  values: CommandContext['values'],
): Promise<Captured> {
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
    if (error instanceof ConfigInvalidError) return { code: 1, stdout: '', stderr: error.message, diagnostics: error.diagnostics };
    if (
      !(error instanceof AbortError) &&
      !(error instanceof Error && ['ApiError', 'NetworkError', 'IdentityRefusedError'].includes(error.name))
    )
      throw error;
    stderr.write(`${error.message}${error instanceof AbortError && error.hint ? `\n${error.hint}` : ''}\n`);
    code = 1;
  }
  return { code, stdout: Buffer.concat(chunks.stdout).toString('utf8'), stderr: Buffer.concat(chunks.stderr).toString('utf8') };
}

/** The plans cplane_plan saved, by planId, under a folder of their own (removed when the server closes). */
interface SavedPlans {
  dir: string;
  plans: Map<string, string>;
}

export function cplaneTools(options: CplaneToolsOptions): { tools: McpTool[]; close(): void } {
  const saved: SavedPlans = { dir: mkdtempSync(join(tmpdir(), 'cplane-mcp-plans-')), plans: new Map() };
  const all = [validateTool(options), planTool(options, saved), applyTool(options, saved)];
  const tools = all.filter((tool) => options.allowApply || tool.name !== 'cplane_apply');
  return { tools, close: () => rmSync(saved.dir, { recursive: true, force: true }) };
}

function validateTool(options: CplaneToolsOptions): McpTool {
  return {
    name: 'cplane_validate',
    description: `Check the cplane configuration in ${options.dir} offline (no API call) and report every problem with file:line:col.`,
    inputSchema: schemaOf(validateInput),
    annotations: { title: 'Validate the configuration', readOnlyHint: true, openWorldHint: false },
    async run(args): Promise<ToolOutcome> {
      const problems = await inputProblems(validateInput, args);
      if (problems.length > 0) return { isError: true, parts: [`cplane_validate was not run: ${problems.join('; ')}`] };
      const outside = await varFilesOutside(args as PlanInput, options.dir);
      if (outside) return outside;
      const run = await runCommand(await options.commands.validate(), options, [options.dir], {
        json: true,
        ...flagsOf(args as PlanInput),
      });
      if (run.stdout === '') return failure(run);
      return { isError: run.code !== 0, parts: [JSON.parse(run.stdout) as unknown] };
    },
  };
}

function planTool(options: CplaneToolsOptions, saved: SavedPlans): McpTool {
  return {
    name: 'cplane_plan',
    description:
      `Refresh the live account and show what applying the configuration in ${options.dir} would change, as plan JSON. ` +
      (options.allowApply
        ? 'Returns a planId: pass it to cplane_apply to perform exactly this plan. Changes nothing.'
        : 'Changes nothing. Applying is left to a person (`cplane apply`): this server was started without --allow-apply.'),
    inputSchema: schemaOf(planInput),
    annotations: { title: 'Plan', readOnlyHint: true, openWorldHint: false },
    async run(args): Promise<ToolOutcome> {
      const problems = await inputProblems(planInput, args);
      if (problems.length > 0) return { isError: true, parts: [`cplane_plan was not run: ${problems.join('; ')}`] };
      const outside = await varFilesOutside(args as PlanInput, options.dir);
      if (outside) return outside;
      const planId = `plan-${randomBytes(6).toString('hex')}`;
      const input = args as PlanInput;
      if (input.deployment !== undefined) return planDeployment(options, saved, input.deployment, planId, input);
      const file = join(saved.dir, `${planId}.json`);
      const run = await runCommand(await options.commands.plan(), options, [options.dir], { out: file, json: true, ...flagsOf(input) });
      if (run.code !== 0) return failure(run);
      saved.plans.set(planId, file);
      return { parts: [{ planId, plan: JSON.parse(run.stdout) as unknown }] };
    },
  };
}

/** `cplane plan --deployment NAME --out DIR --json`: the one deployment's plan, saved as DIR/NAME.plan.json. */
async function planDeployment(
  options: CplaneToolsOptions,
  saved: SavedPlans,
  name: string,
  planId: string,
  input: PlanInput,
): Promise<ToolOutcome> {
  const dir = join(saved.dir, planId);
  const run = await runCommand(await options.commands.plan(), options, [options.dir], {
    out: dir,
    json: true,
    ...flagsOf(input),
    deployment: [name],
  });
  if (!run.stdout.trim().startsWith('{')) return failure(run);
  const [only] = (JSON.parse(run.stdout) as { deployments: { plan?: unknown; error?: string }[] }).deployments;
  if (!only?.plan || run.code === 1) return { isError: true, parts: [only?.error ?? run.stderr.trim()] };
  saved.plans.set(planId, join(dir, `${name}.plan.json`));
  return { parts: [{ planId, deployment: name, plan: only.plan }] };
}

function applyTool(options: CplaneToolsOptions, saved: SavedPlans): McpTool {
  return {
    name: 'cplane_apply',
    description:
      'Perform a plan made by cplane_plan, given its planId. It re-plans first: when the configuration or the live objects changed since the plan was made, ' +
      'the plan is stale and is refused (nothing is changed); make a new plan. Returns the events and the summary of the run.',
    inputSchema: {
      type: 'object',
      properties: { planId: { type: 'string', description: 'The planId returned by cplane_plan.' } },
      required: ['planId'],
      additionalProperties: false,
    },
    annotations: { title: 'Apply a plan', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args): Promise<ToolOutcome> {
      const file = typeof args.planId === 'string' ? saved.plans.get(args.planId) : undefined;
      if (!file)
        return {
          isError: true,
          parts: [`Unknown planId ${JSON.stringify(args.planId)}: call cplane_plan and pass the planId it returns.`],
        };
      const run = await runCommand(await options.commands.apply(), options, [file], { json: true });
      const events = run.stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
      if (run.code !== 0 && events.length === 0) return { isError: true, parts: [run.stderr.trim()] };
      return { isError: run.code !== 0, parts: [{ applied: run.code === 0, events }] };
    },
  };
}
