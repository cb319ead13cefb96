/**
 * Running a command once per deployment (docs/deployments.md): which deployments `--all` and `--deployment`
 * choose, and the command context each runs with: its account and workspace as flags, the inherited
 * CPLANE_ACCOUNT and CPLANE_WORKSPACE dropped (the configuration names the account), its name (the loader
 * adds its variables), the token it chooses and the address it says it is at (session/connection.ts), the limit of requests in flight it shares with the others, and its own output
 * buffers, so each deployment's plan is shown whole, after the matrix, whatever order they finish in.
 */
import { Writable } from 'node:stream';
import { resolve } from 'node:path';
import { Limiter } from '../../api/limiter.js';
import { formatDiagnostic, type Deployment } from '../../config/index.js';
import { didYouMean, tokenVariableOf } from '../../config/index.js';
import type { PlanRun } from '../../plan-model/index.js';
import { loadConfiguration } from '../../providers/index.js';
import type { CommandContext } from '../../session/command-context.js';
import { DEFAULT_PARALLELISM, parseParallelism } from '../../session/connection.js';
import { AbortError } from '../../errors.js';
import { ConfigInvalidError } from '../../session/errors.js';
import { variablesLoadOptions } from '../../session/variables-flags.js';
import { isPostgresUrl } from '../../state/index.js';
import { registerSecret } from '../../text/safe-text.js';
import { describeError } from '../report/describe-error.js';
import { changedDeployments } from './changed.js';

/** At most this many deployments' worth of `--parallelism` in flight at once, across all of them. */
export const DEPLOYMENTS_AT_FULL_SPEED = 8;

/**
 * The codes of config/blocks/deployments.ts: problems of the deployments themselves; and a path that leads outside the
 * configuration's bounds (a var file, a secret file), said once and before any deployment reads anything.
 */
const DEPLOYMENT_CODES = new Set([
  'duplicate_deployment',
  'deployment_interpolation',
  'account_beside_deployments',
  'unknown_deployment',
  'deployment_cycle',
  'duplicate_deployment_target',
  'path_outside',
  'deployment_token_env',
  'deployment_token_name',
  'token_not_bound',
]);

/** Whether the command was asked to run for deployments. */
export function wantsDeployments(ctx: CommandContext): boolean {
  return ctx.values.all === true || ctx.values.deployment !== undefined || ctx.values.changed === true;
}

export interface ChosenDeployments {
  dir: string;
  /** Every deployment the configuration declares, in declaration order. */
  all: Deployment[];
  /** Those chosen by --all or --deployment, in declaration order. */
  chosen: Deployment[];
}

/**
 * The configuration's deployments and those chosen. The configuration is loaded once without variable values
 * (as `cplane validate` does), so a problem that does not depend on them is said once, not once per deployment.
 */
export async function chooseDeployments(
  ctx: CommandContext,
  verb: string,
  options: { dir?: string | undefined } = {},
): Promise<ChosenDeployments> {
  for (const flag of ['account', 'workspace']) {
    if (typeof ctx.values[flag] === 'string')
      throw new AbortError(
        `--${flag} cannot be used with --all or --deployment: each deployment names its own ${flag}.`,
        "Leave it out; the configuration's deployments: says where each one goes.",
      );
  }
  const state = typeof ctx.values.state === 'string' ? ctx.values.state : ctx.env.CPLANE_STATE || undefined;
  if (state !== undefined && !isPostgresUrl(state)) {
    throw new AbortError(
      '--state (or CPLANE_STATE) names one state file, and each deployment has its own state.',
      'Leave it out (each deployment keeps its state under <dir>/.cplane/<account>/), or give a postgres:// URL, which keeps one state per account and workspace.',
    );
  }
  // A command with other arguments (`state show ADDRESS [dir]`) says where its folder is; plan and apply take only the folder.
  if (!('dir' in options) && ctx.positionals.length > 1)
    throw new AbortError(`Unexpected arguments: ${ctx.positionals.slice(1).join(' ')}.`, 'Give at most one configuration folder.');
  const dir = resolve(ctx.cwd, ('dir' in options ? options.dir : ctx.positionals[0]) ?? '.');
  const { deployments, diagnostics } = await loadConfiguration(dir, { ...variablesLoadOptions(ctx), allowUnsetVariables: true });
  // Without values, a forEach over a variable cannot be expanded, and so on: those are each deployment's to say.
  // What is wrong with the deployments themselves is said here, once.
  const errors = diagnostics.filter((d) => d.severity === 'error' && (!deployments || DEPLOYMENT_CODES.has(d.code)));
  const color = ctx.stderr.isTTY === true && !ctx.env.NO_COLOR;
  if (errors.length > 0) {
    throw new ConfigInvalidError(
      `The configuration in ${dir} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n\n${errors.map((d) => formatDiagnostic(d, { color })).join('\n')}`,
      'Fix them and run the command again (`cplane validate` checks the configuration offline).',
      errors,
    );
  }
  if (!deployments) {
    // `cplane deployments` lists them, flags or not; the other commands were asked for them by a flag.
    if (!wantsDeployments(ctx))
      throw new AbortError(
        `The configuration in ${dir} declares no deployments: it has one account.`,
        'Declare deployments: to plan and apply it in several accounts (docs/deployments.md).',
      );
    throw new AbortError(
      `--all and --deployment need deployments:, and the configuration in ${dir} declares none.`,
      `Run \`cplane ${verb}\` without them for its one account, or declare deployments: (docs/deployments.md).`,
    );
  }
  // Every deployment's token is a secret of this run from now on, whichever deployments it chooses: none is ever printed.
  for (const d of deployments) registerSecret(ctx.env[tokenVariableOf(d.tokenName)]);
  const names = (ctx.values.deployment as string[] | undefined) ?? [];
  for (const name of names) {
    if (!deployments.some((d) => d.name === name)) {
      throw new AbortError(
        `--deployment ${name}: the configuration has no deployment "${name}"${didYouMean(
          name,
          deployments.map((d) => d.name),
        )}.`,
        `Its deployments: ${deployments.map((d) => d.name).join(', ')}.`,
      );
    }
  }
  let chosen = names.length > 0 ? deployments.filter((d) => names.includes(d.name)) : deployments;
  if (ctx.values.changed === true) {
    const base = typeof ctx.values.base === 'string' ? ctx.values.base : 'HEAD';
    const touched = changedDeployments(dir, chosen, base);
    ctx.stderr.write(
      `--changed: ${touched.changed.length} file(s) changed since ${base}; ${touched.chosen.length === 0 ? 'no deployment is' : `${touched.chosen.map((d) => d.name).join(', ')} ${touched.chosen.length === 1 ? 'is' : 'are'}`} affected.\n`,
    );
    chosen = touched.chosen;
  } else if (typeof ctx.values.base === 'string') {
    throw new AbortError('--base is only used with --changed.', 'Add --changed, or leave --base out.');
  }
  return { dir, all: deployments, chosen };
}

/** What a deployment's run printed, kept to be shown after the matrix. */
export interface Captured {
  stdout: string;
  stderr: string;
}

function buffer(): Writable & { text: string } {
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      sink.text += chunk.toString();
      done();
    },
  }) as Writable & { text: string };
  sink.text = '';
  return sink;
}

/** The limit all deployments of one run share: `--parallelism` each, for at most DEPLOYMENTS_AT_FULL_SPEED at once. */
export function sharedLimiter(ctx: CommandContext, count: number): Limiter {
  const each = ctx.values.parallelism === undefined ? DEFAULT_PARALLELISM : parseParallelism(ctx.values.parallelism);
  return new Limiter(each * Math.max(1, Math.min(count, DEPLOYMENTS_AT_FULL_SPEED)));
}

/**
 * The context `deployment` runs with. With `capture`, its output goes to buffers (returned by `captured()`);
 * otherwise it writes where the command does (apply, one deployment at a time, asks on the terminal).
 */
export function deploymentContext(
  ctx: CommandContext,
  deployment: Deployment,
  options: {
    limiter?: Limiter;
    capture: boolean;
    values?: CommandContext['values'];
    env?: NodeJS.ProcessEnv;
    fleet?: string[];
    run?: PlanRun;
  },
): { ctx: CommandContext; captured(): Captured } {
  const { CPLANE_ACCOUNT: _account, CPLANE_WORKSPACE: _workspace, ...inherited } = ctx.env;
  const env = { ...inherited, ...options.env };
  const stdout = options.capture ? buffer() : undefined;
  const stderr = options.capture ? buffer() : undefined;
  const { all: _all, deployment: _deployment, ...values } = ctx.values;
  const derived = {
    ...(ctx.command ? { command: ctx.command } : {}),
    positionals: ctx.positionals,
    // What follows `--` (`cplane run --deployment dev --env ... -- cmd`): the command's, kept for it.
    ...(ctx.afterTerminator ? { afterTerminator: ctx.afterTerminator } : {}),
    values: { ...values, account: deployment.account, workspace: deployment.workspace, ...options.values },
    ...(ctx.optionOrder ? { optionOrder: ctx.optionOrder } : {}),
    env,
    cwd: ctx.cwd,
    stdout: stdout ?? ctx.stdout,
    stderr: stderr ?? ctx.stderr,
    deployment: {
      name: deployment.name,
      ...(options.limiter ? { sharedLimiter: options.limiter } : {}),
      ...(deployment.tokenName ? { tokenName: deployment.tokenName } : {}),
      ...(deployment.baseUrl ? { baseUrl: deployment.baseUrl } : {}),
      ...(options.fleet ? { fleet: options.fleet } : {}),
      ...(options.run ? { run: options.run } : {}),
    },
  } as Omit<CommandContext, 'stdin'> as CommandContext;
  // Lazy, as the CLI's own: creating process.stdin costs time at exit, and only an interactive apply reads it.
  Object.defineProperty(derived, 'stdin', { get: () => ctx.stdin, enumerable: true });
  return { ctx: derived, captured: () => ({ stdout: stdout?.text ?? '', stderr: stderr?.text ?? '' }) };
}

/** Runs `run` for a deployment; a throw becomes its message (as the CLI would print it) and exit code 1. */
export async function runCaught(
  run: () => Promise<number>,
  command: string[],
  ctx: CommandContext,
): Promise<{ code: number; error?: string }> {
  try {
    return { code: await run() };
  } catch (error) {
    const { message, exitCode } = describeError(error, { name: command });
    ctx.stderr.write(message);
    return { code: exitCode === 0 ? 1 : exitCode, error: message.replace(/^Error: /, '').split('\n')[0]! };
  }
}
