/**
 * The checks of a saved plan before `cplane apply PLANFILE` opens anything: its MAC (mac.ts), its placeholders
 * (check-against-fresh-plan.ts), flags and environment that contradict it (each refused, naming both values),
 * the configuration files it was made from (origin.ts, which may have changed: a plan is stale only where it is
 * wrong, check-against-fresh-plan.ts), and where its state is. What it returns is the command context the
 * workspace is opened with, as the plan recorded it, and the files that changed since the plan was made.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { boundState, databaseOf, sameDatabase } from '../config/index.js';
import { loadConfiguration } from '../providers/index.js';
import type { CommandContext } from '../session/command-context.js';
import { AbortError } from '../errors.js';
import { variablesLoadOptions } from '../session/variables-flags.js';
import type { Workspace } from '../session/workspace.js';
import { workspaceName } from '../session/workspace-name.js';
import { urlWithoutPasswords } from '../text/url-secrets.js';
import { placeholderProblems } from './check-against-fresh-plan.js';
import { checkPlanMac } from './mac.js';
import { changedFiles, isStateUrl } from './origin.js';
import { REPLAN, type SavedPlan } from './read.js';

/** A saved plan checked before any request: the context to open its workspace with, and its configuration files that changed. */
export interface PreparedSavedPlan {
  ctx: CommandContext;
  /** `main.yaml (changed)`, `new.yaml (added)`: a merge commit the plan never saw. Empty when none changed. */
  changedFiles: string[];
}

/**
 * Checks a saved plan before any request is sent (its placeholders, contradicting flags and
 * environment) and returns the command context to open its workspace with.
 */
export async function prepareSavedPlan(
  ctx: CommandContext,
  plan: SavedPlan,
  planPath: string,
  dirArgument: string | undefined,
): Promise<PreparedSavedPlan> {
  checkPlanMac(ctx.env, plan, planPath);
  const altered = placeholderProblems(plan);
  if (altered.length > 0) {
    throw new AbortError(
      `The saved plan ${planPath} was altered: it sends secrets where no plan made by cplane does. Nothing was applied:\n${altered.map((p) => `  - ${p}`).join('\n')}`,
      `Do not apply this file. ${REPLAN}`,
    );
  }
  for (const flag of ['var', 'var-file', 'target', 'exclude', 'replace']) {
    if (ctx.values[flag] !== undefined)
      throw new AbortError(`--${flag} cannot be used with a saved plan: the plan carries the values it was made with.`, REPLAN);
  }
  const refuse = (what: string, given: string, where: string, planned: string) =>
    new AbortError(
      `${where} says ${what} ${given}, but the saved plan ${planPath} was made for ${what} ${planned}.`,
      `Unset ${where.split(' ')[0]}, or make a new plan for ${given}.`,
    );

  const flagAccount = typeof ctx.values.account === 'string' ? ctx.values.account : undefined;
  // A deployment's account and workspace are the configuration's: an inherited CPLANE_ACCOUNT or CPLANE_WORKSPACE says nothing of them.
  const ofDeployment = plan.origin.deployment !== undefined;
  const givenAccount = flagAccount ?? (ofDeployment ? undefined : ctx.env.CPLANE_ACCOUNT || undefined);
  if (givenAccount !== undefined && givenAccount !== plan.account)
    throw refuse('account', givenAccount, flagAccount !== undefined ? '--account' : 'CPLANE_ACCOUNT', plan.account);
  const explicitWorkspace = typeof ctx.values.workspace === 'string' || (!ofDeployment && Boolean(ctx.env.CPLANE_WORKSPACE));
  if (explicitWorkspace && workspaceName(ctx) !== plan.origin.workspace) {
    throw refuse(
      'workspace',
      workspaceName(ctx),
      typeof ctx.values.workspace === 'string' ? '--workspace' : 'CPLANE_WORKSPACE',
      plan.origin.workspace,
    );
  }

  const configDir = resolve(ctx.cwd, dirArgument ?? plan.origin.configDir);
  if (!statSync(configDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AbortError(
      `The saved plan ${planPath} was made for the configuration in ${plan.origin.configDir} (relative to the folder \`cplane plan\` ran in), and ${configDir} is not a folder.`,
      `Run \`cplane apply\` from the same place in your checkout, or name the folder: \`cplane apply PLANFILE DIR\`.`,
    );
  }
  // Changed files do not make the plan stale (a pull request merged without rebasing applies on the merge
  // commit): the plan made now from them must still have exactly the saved steps at the saved addresses.
  const changed = await changedFiles(plan.origin.files, configDir);

  const state = await savedStateLocation(ctx, plan, planPath, configDir);
  // A deployment's plan loads the configuration as that deployment (its account and variables; docs/deployments.md),
  // and connects with its own token and address: `apply DIR` knows them already, a plan applied alone reads them here.
  const name = plan.origin.deployment;
  const deployment =
    name !== undefined ? { deployment: { ...(ctx.deployment ?? (await deploymentCredential(ctx, configDir, name))), name } } : {};
  return {
    ctx: {
      ...ctx,
      positionals: [configDir],
      values: { ...ctx.values, account: plan.account, workspace: plan.origin.workspace, state },
      ...deployment,
    },
    changedFiles: changed,
  };
}

/** The token a deployment chooses (`token: NAME`) and the address it says it is at (`baseUrl`), as the configuration declares them: the files, checked unchanged, the plan was made from. */
async function deploymentCredential(
  ctx: CommandContext,
  configDir: string,
  name: string,
): Promise<{ tokenName?: string; baseUrl?: string }> {
  const loaded = await loadConfiguration(configDir, { ...variablesLoadOptions(ctx), allowUnsetVariables: true }).catch(() => undefined);
  const declared = loaded?.deployments?.find((d) => d.name === name);
  return { ...(declared?.tokenName ? { tokenName: declared.tokenName } : {}), ...(declared?.baseUrl ? { baseUrl: declared.baseUrl } : {}) };
}

/** The configuration's `state: { url }` with the plan's variables and the applying job's environment; undefined when it has none or does not load. */
async function configuredStateUrl(
  ctx: CommandContext,
  configDir: string,
  variables: Workspace['desired']['variables'],
): Promise<string | undefined> {
  const loaded = await loadConfiguration(configDir, { ...variablesLoadOptions(ctx), savedVariables: variables }).catch(() => undefined);
  return loaded?.desired?.stateUrl;
}

/** Without CPLANE_STATE or --state, the plan's database must be the one PGHOST binds: PGPASSWORD goes nowhere else. */
function refuseUnboundDatabase(ctx: CommandContext, url: string, planPath: string): void {
  const bound = boundState(ctx.env, undefined);
  const named = databaseOf(url);
  if (named && bound.database && sameDatabase(named, bound.database)) return;
  throw new AbortError(
    `The saved plan ${planPath} was made against the state ${url}, and this job binds no state there (${bound.from}).`,
    'Give the database with its password in CPLANE_STATE or --state, or set PGHOST (and PGPORT, PGPASSWORD) to it (docs/state.md).',
  );
}

/**
 * Where the state of a saved plan is: the plan's (authenticated) location. Its password is never in the plan:
 * a --state or CPLANE_STATE of the applying job that names the same database gives it, or else the
 * configuration's `state: { url }` (the files the plan was made from) read again in the applying job, so a
 * `${env.NAME}` in it takes that variable of the applying job.
 */
async function savedStateLocation(ctx: CommandContext, plan: SavedPlan, planPath: string, configDir: string): Promise<string> {
  const flag = typeof ctx.values.state === 'string' ? ctx.values.state : undefined;
  const given = flag ?? (ctx.env.CPLANE_STATE || undefined);
  const recorded = plan.origin.state;
  if ('url' in recorded) {
    if (given === undefined) {
      refuseUnboundDatabase(ctx, recorded.url, planPath);
      const configured = await configuredStateUrl(ctx, configDir, plan.origin.variables);
      return configured !== undefined && urlWithoutPasswords(configured) === recorded.url ? configured : recorded.url;
    }
    if (isStateUrl(given) && urlWithoutPasswords(given) === recorded.url) return given;
    const shown = isStateUrl(given) ? urlWithoutPasswords(given) : given;
    throw new AbortError(
      `${flag !== undefined ? '--state' : 'CPLANE_STATE'} is ${shown}, but the saved plan ${planPath} was made against the state ${recorded.url}.`,
      `Unset it, or make a new plan against ${shown}.`,
    );
  }
  const planned = isAbsolute(recorded.path) ? recorded.path : resolve(configDir, recorded.path);
  if (given !== undefined) {
    const shown = isStateUrl(given) ? urlWithoutPasswords(given) : resolve(ctx.cwd, given);
    if (shown !== planned)
      throw new AbortError(
        `${flag !== undefined ? '--state' : 'CPLANE_STATE'} is ${shown}, but the saved plan ${planPath} was made against the state ${planned}.`,
        `Unset it, or make a new plan against ${shown}.`,
      );
  }
  return planned;
}
