/**
 * What `cplane plan --out` records about where it ran, and how `cplane apply
 * PLANFILE` uses it: the configuration folder (relative to the working
 * folder), the variable values, the account, the workspace and the state
 * location, so that the plan applies in another job from another checkout with
 * no --var or --var-file. Anything given at apply that contradicts the plan is
 * refused, naming both values; the plan file's own secret references and
 * placeholders are never trusted (see planner/plan-trust.ts).
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { listAccounts } from '../providers/index.js';
import {
  changedFiles,
  isStateUrl,
  placeholderProblems,
  plannedFiles,
  recordedStatePath,
  relativePosix,
  stepDifferences,
  withoutCredentials,
  withSavedKeys,
  type Plan,
  type PlanContext,
} from '../planner/index.js';
import type { CommandContext } from '../session/command-context.js';
import { AbortError } from '../session/errors.js';
import type { Workspace } from '../session/workspace.js';
import { workspaceName } from '../session/workspace-name.js';

export type SavedPlan = Plan & { context: PlanContext };

const REPLAN = 'Make a new plan with `cplane plan --out FILE`, review it, and apply that.';

/** The account's name, or null when the token may not list accounts (a Service Account) or the list fails. */
export async function accountNameOf(client: ApiClient, account: string): Promise<string | null> {
  try {
    return (await listAccounts(client)).find((a) => a.account_id === account)?.name ?? null;
  } catch {
    return null;
  }
}

/** The state location as a plan records it: a URL without its password, or the file relative to the configuration folder. */
export function stateRecord(workspace: Workspace): PlanContext['state'] {
  // The URL as given, not the store's `path`: for a database that is a message (masked URL, account, workspace),
  // which no --state or CPLANE_STATE in the applying job could match. The plan keeps it with no credentials at all.
  if (workspace.statePath !== undefined && isStateUrl(workspace.statePath)) return { url: withoutCredentials(workspace.statePath) };
  return { path: recordedStatePath(workspace.dir, workspace.state.path) };
}

export async function planContext(ctx: CommandContext, workspace: Workspace, accountName: string | null): Promise<PlanContext> {
  return {
    workspace: workspace.workspace,
    accountName,
    configDir: relativePosix(ctx.cwd, workspace.dir),
    files: await plannedFiles(workspace.dir),
    variables: workspace.desired.variables,
    state: stateRecord(workspace),
  };
}

/**
 * Checks a saved plan before any request is sent (its placeholders, contradicting flags and
 * environment, the configuration files) and returns the command context to open its workspace with.
 */
export async function prepareSavedPlan(ctx: CommandContext, plan: SavedPlan, planPath: string, dirArgument: string | undefined): Promise<CommandContext> {
  const altered = placeholderProblems(plan);
  if (altered.length > 0) {
    throw new AbortError(
      `The saved plan ${planPath} was altered: it sends secrets where no plan made by cplane does. Nothing was applied:\n${altered.map((p) => `  - ${p}`).join('\n')}`,
      `Do not apply this file. ${REPLAN}`,
    );
  }
  for (const flag of ['var', 'var-file', 'target', 'replace']) {
    if (ctx.values[flag] !== undefined) throw new AbortError(`--${flag} cannot be used with a saved plan: the plan carries the values it was made with.`, REPLAN);
  }
  const refuse = (what: string, given: string, where: string, planned: string) =>
    new AbortError(`${where} says ${what} ${given}, but the saved plan ${planPath} was made for ${what} ${planned}.`, `Unset ${where.split(' ')[0]}, or make a new plan for ${given}.`);

  const flagAccount = typeof ctx.values.account === 'string' ? ctx.values.account : undefined;
  const givenAccount = flagAccount ?? (ctx.env.CPLANE_ACCOUNT || undefined);
  if (givenAccount !== undefined && givenAccount !== plan.account) throw refuse('account', givenAccount, flagAccount !== undefined ? '--account' : 'CPLANE_ACCOUNT', plan.account);
  const explicitWorkspace = typeof ctx.values.workspace === 'string' || Boolean(ctx.env.CPLANE_WORKSPACE);
  if (explicitWorkspace && workspaceName(ctx) !== plan.context.workspace) {
    throw refuse('workspace', workspaceName(ctx), typeof ctx.values.workspace === 'string' ? '--workspace' : 'CPLANE_WORKSPACE', plan.context.workspace);
  }

  const configDir = resolve(ctx.cwd, dirArgument ?? plan.context.configDir);
  if (!statSync(configDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AbortError(
      `The saved plan ${planPath} was made for the configuration in ${plan.context.configDir} (relative to the folder \`cplane plan\` ran in), and ${configDir} is not a folder.`,
      `Run \`cplane apply\` from the same place in your checkout, or name the folder: \`cplane apply PLANFILE DIR\`.`,
    );
  }
  const changed = await changedFiles(plan.context.files, configDir);
  if (changed.length > 0) {
    throw new AbortError(
      `The saved plan ${planPath} is stale: the configuration in ${configDir} changed since it was made: ${changed.join(', ')}. Nothing was applied.`,
      REPLAN,
    );
  }

  return { ...ctx, positionals: [configDir], values: { ...ctx.values, account: plan.account, workspace: plan.context.workspace, state: savedStateLocation(ctx, plan, planPath, configDir) } };
}

/** Where the state of a saved plan is: the plan's location; a --state or CPLANE_STATE that names the same one may add its password. */
function savedStateLocation(ctx: CommandContext, plan: SavedPlan, planPath: string, configDir: string): string {
  const flag = typeof ctx.values.state === 'string' ? ctx.values.state : undefined;
  const given = flag ?? (ctx.env.CPLANE_STATE || undefined);
  const recorded = plan.context.state;
  if ('url' in recorded) {
    if (given === undefined) return recorded.url;
    if (isStateUrl(given) && withoutCredentials(given) === recorded.url) return given;
    const shown = isStateUrl(given) ? withoutCredentials(given) : given;
    throw new AbortError(`${flag !== undefined ? '--state' : 'CPLANE_STATE'} is ${shown}, but the saved plan ${planPath} was made against the state ${recorded.url}.`, `Unset it, or make a new plan against ${shown}.`);
  }
  const planned = isAbsolute(recorded.path) ? recorded.path : resolve(configDir, recorded.path);
  if (given !== undefined) {
    const shown = isStateUrl(given) ? withoutCredentials(given) : resolve(ctx.cwd, given);
    if (shown !== planned) throw new AbortError(`${flag !== undefined ? '--state' : 'CPLANE_STATE'} is ${shown}, but the saved plan ${planPath} was made against the state ${planned}.`, `Unset it, or make a new plan against ${shown}.`);
  }
  return planned;
}

/**
 * The plan to execute for a saved plan: the fresh one, with the saved Idempotency-Keys, when the saved
 * steps are exactly the fresh steps; otherwise the saved plan is refused, naming each address that differs.
 */
export function trustedPlan(saved: SavedPlan, fresh: Plan, planPath: string): Plan {
  const differences = stepDifferences(saved, fresh);
  if (differences.length > 0) {
    const shown = differences.slice(0, 20);
    throw new AbortError(
      `The saved plan ${planPath} is stale or was altered: its steps are not the ones a plan made now from the configuration and the live objects has. Nothing was applied:\n${shown.map((d) => `  - ${d}`).join('\n')}${differences.length > shown.length ? `\n  - and ${differences.length - shown.length} more` : ''}`,
      REPLAN,
    );
  }
  return { ...withSavedKeys(fresh, saved), context: saved.context };
}
