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
import { loadConfiguration } from '../providers/index.js';
import { variablesLoadOptions } from '../session/variables-flags.js';
import { KeyError, planMacKey, planMacMatches, resolveStateKey } from '../crypto/index.js';
import { listAccounts } from '../providers/index.js';
import {
  changedFiles,
  isStateUrl,
  placeholderProblems,
  plannedFiles,
  readPlanFile,
  policyDifferences,
  recordedStatePath,
  relativePosix,
  stepDifferences,
  withPendingResolved,
  withSavedKeys,
  type Plan,
  type PlanContext,
} from '../planner/index.js';
import type { CommandContext } from '../session/command-context.js';
import { AbortError } from '../session/errors.js';
import type { Workspace } from '../session/workspace.js';
import { workspaceName } from '../session/workspace-name.js';
import { urlWithoutPasswords } from '../text/url-secrets.js';

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
  if (workspace.statePath !== undefined && isStateUrl(workspace.statePath)) return { url: urlWithoutPasswords(workspace.statePath) };
  return { path: recordedStatePath(workspace.dir, workspace.state.path) };
}

export async function planContext(ctx: CommandContext, workspace: Workspace, accountName: string | null): Promise<PlanContext> {
  return {
    workspace: workspace.workspace,
    ...(ctx.deployment ? { deployment: ctx.deployment.name } : {}),
    accountName,
    configDir: relativePosix(ctx.cwd, workspace.dir),
    files: await plannedFiles(workspace.dir, workspace.desired.files),
    variables: workspace.desired.variables,
    state: stateRecord(workspace),
  };
}

/**
 * Checks a saved plan before any request is sent (its placeholders, contradicting flags and
 * environment, the configuration files) and returns the command context to open its workspace with.
 */
export async function prepareSavedPlan(ctx: CommandContext, plan: SavedPlan, planPath: string, dirArgument: string | undefined): Promise<CommandContext> {
  checkPlanMac(ctx.env, plan, planPath);
  const altered = placeholderProblems(plan);
  if (altered.length > 0) {
    throw new AbortError(
      `The saved plan ${planPath} was altered: it sends secrets where no plan made by cplane does. Nothing was applied:\n${altered.map((p) => `  - ${p}`).join('\n')}`,
      `Do not apply this file. ${REPLAN}`,
    );
  }
  for (const flag of ['var', 'var-file', 'target', 'exclude', 'replace']) {
    if (ctx.values[flag] !== undefined) throw new AbortError(`--${flag} cannot be used with a saved plan: the plan carries the values it was made with.`, REPLAN);
  }
  const refuse = (what: string, given: string, where: string, planned: string) =>
    new AbortError(`${where} says ${what} ${given}, but the saved plan ${planPath} was made for ${what} ${planned}.`, `Unset ${where.split(' ')[0]}, or make a new plan for ${given}.`);

  const flagAccount = typeof ctx.values.account === 'string' ? ctx.values.account : undefined;
  // A deployment's account and workspace are the configuration's: an inherited CPLANE_ACCOUNT or CPLANE_WORKSPACE says nothing of them.
  const ofDeployment = plan.context.deployment !== undefined;
  const givenAccount = flagAccount ?? (ofDeployment ? undefined : ctx.env.CPLANE_ACCOUNT || undefined);
  if (givenAccount !== undefined && givenAccount !== plan.account) throw refuse('account', givenAccount, flagAccount !== undefined ? '--account' : 'CPLANE_ACCOUNT', plan.account);
  const explicitWorkspace = typeof ctx.values.workspace === 'string' || (!ofDeployment && Boolean(ctx.env.CPLANE_WORKSPACE));
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

  const state = await savedStateLocation(ctx, plan, planPath, configDir);
  // A deployment's plan loads the configuration as that deployment (its account and variables; docs/deployments.md).
  const deployment = plan.context.deployment !== undefined ? { deployment: { ...ctx.deployment, name: plan.context.deployment } } : {};
  return { ...ctx, positionals: [configDir], values: { ...ctx.values, account: plan.account, workspace: plan.context.workspace, state }, ...deployment };
}

/** The configuration's `state: { url }` with the plan's variables and the applying job's environment; undefined when it has none or does not load. */
async function configuredStateUrl(ctx: CommandContext, configDir: string, variables: Workspace['desired']['variables']): Promise<string | undefined> {
  const loaded = await loadConfiguration(configDir, { ...variablesLoadOptions(ctx), savedVariables: variables }).catch(() => undefined);
  return loaded?.desired?.stateUrl;
}

/**
 * Refuses a plan file that is not byte for byte (as canonical JSON) the plan `cplane plan --out` saved with
 * this state key: checked first, so an edited state URL or write never gets a connection opened for it.
 */
function checkPlanMac(env: NodeJS.ProcessEnv, plan: SavedPlan, planPath: string): void {
  const refused = (why: string) =>
    new AbortError(
      `The saved plan ${planPath} ${why}. Nothing was applied, and no connection was opened.`,
      `Apply only a plan made by \`cplane plan --out\` with the same state key (CPLANE_STATE_KEY, or CPLANE_PASSPHRASE, as in the planning job). ${REPLAN}`,
    );
  if (!plan.auth) throw refused(NO_MAC);
  const check = planMacCheck(env, plan);
  if (check.status === 'no-key') throw new AbortError(`The saved plan ${planPath} cannot be checked: ${check.error.message} Nothing was applied.`, check.error.hint);
  if (check.status !== 'verified') throw refused(MAC_MISMATCH);
}

const NO_MAC = 'carries no MAC: it was made by an older cplane, or altered';
const MAC_MISMATCH = 'was changed since it was made, or made with another state key: its MAC does not match';

/** What the MAC of a saved plan says with the state key at hand: checked, absent, wrong, or no key to check it with. */
type MacCheck = { status: 'verified' | 'no-mac' | 'mismatch' } | { status: 'no-key'; error: KeyError };

function planMacCheck(env: NodeJS.ProcessEnv, plan: SavedPlan): MacCheck {
  let key: Uint8Array;
  try {
    // `existing`: never create a key file here; a passphrase key is derived with the plan's (authenticated) parameters.
    key = resolveStateKey(env, { existing: { kdf: plan.auth?.kdf } }).key;
  } catch (error) {
    if (error instanceof KeyError) return { status: 'no-key', error };
    throw error;
  }
  if (!plan.auth) return { status: 'no-mac' };
  return { status: planMacMatches(planMacKey(key), plan, plan.auth.mac) ? 'verified' : 'mismatch' };
}

/**
 * A saved plan read to be shown (`cplane show`, `cplane graph --plan`), never applied: its MAC is checked when the
 * state key is at hand, and a plan that fails the check is refused as apply refuses it. Without the key it is
 * shown all the same, with `unverified` saying why in one line, for the command to print.
 */
export async function readPlanToShow(env: NodeJS.ProcessEnv, planPath: string): Promise<{ plan: SavedPlan; unverified?: string }> {
  const plan = await readPlanFile(planPath);
  const check = planMacCheck(env, plan);
  const refused = (why: string) =>
    new AbortError(`The saved plan ${planPath} ${why}. It is not shown: what it says cannot be trusted.`, `Show only a plan made by \`cplane plan --out\` with this state key (CPLANE_STATE_KEY, or CPLANE_PASSPHRASE). ${REPLAN}`);
  if (check.status === 'no-key') return { plan, unverified: `UNVERIFIED: no state key at hand (CPLANE_STATE_KEY, CPLANE_PASSPHRASE or the key file), so the MAC of ${planPath} was not checked: it may have been altered.` };
  if (check.status === 'no-mac') throw refused(NO_MAC);
  if (check.status === 'mismatch') throw refused(MAC_MISMATCH);
  return { plan };
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
  const recorded = plan.context.state;
  if ('url' in recorded) {
    if (given === undefined) {
      const configured = await configuredStateUrl(ctx, configDir, plan.context.variables);
      return configured !== undefined && urlWithoutPasswords(configured) === recorded.url ? configured : recorded.url;
    }
    if (isStateUrl(given) && urlWithoutPasswords(given) === recorded.url) return given;
    const shown = isStateUrl(given) ? urlWithoutPasswords(given) : given;
    throw new AbortError(`${flag !== undefined ? '--state' : 'CPLANE_STATE'} is ${shown}, but the saved plan ${planPath} was made against the state ${recorded.url}.`, `Unset it, or make a new plan against ${shown}.`);
  }
  const planned = isAbsolute(recorded.path) ? recorded.path : resolve(configDir, recorded.path);
  if (given !== undefined) {
    const shown = isStateUrl(given) ? urlWithoutPasswords(given) : resolve(ctx.cwd, given);
    if (shown !== planned) throw new AbortError(`${flag !== undefined ? '--state' : 'CPLANE_STATE'} is ${shown}, but the saved plan ${planPath} was made against the state ${planned}.`, `Unset it, or make a new plan against ${shown}.`);
  }
  return planned;
}

/**
 * The plan to execute for a saved plan: the fresh one, with the saved Idempotency-Keys, when the saved
 * steps are exactly the fresh steps; otherwise the saved plan is refused, naming each address that differs.
 */
export function trustedPlan(saved: SavedPlan, fresh: Plan, planPath: string, resent: { count: number; idNow: (address: string) => string | undefined }): Plan {
  const policies = policyDifferences(saved, fresh);
  if (policies.length > 0) {
    const done = resent.count > 0 ? `${resent.count} pending write(s) an earlier run left were resent first; none of the saved plan's steps was applied` : 'Nothing was applied';
    throw new AbortError(`The saved plan ${planPath} was checked under other policies: ${policies.join('; ')}. ${done}.`, REPLAN);
  }
  const differences = stepDifferences(withPendingResolved(saved, resent.idNow), fresh);
  if (differences.length > 0) {
    const shown = differences.slice(0, 20);
    // Pending writes are resent before the saved plan is checked: say so, rather than claim nothing happened.
    const done = resent.count > 0 ? `${resent.count} pending write(s) an earlier run left were resent first; none of the saved plan's steps was applied` : 'Nothing was applied';
    throw new AbortError(
      `The saved plan ${planPath} is stale or was altered: its steps are not the ones a plan made now from the configuration and the live objects has. ${done}:\n${shown.map((d) => `  - ${d}`).join('\n')}${differences.length > shown.length ? `\n  - and ${differences.length - shown.length} more` : ''}`,
      REPLAN,
    );
  }
  const { auth: _auth, ...plan } = withSavedKeys(fresh, saved);
  return { ...plan, context: saved.context };
}

/** `--target` and `--exclude` are opposites (OpenTofu refuses them together too): a run uses one or the other. */
export function refuseTargetWithExclude(targets: readonly string[], exclude: readonly string[]): void {
  if (targets.length > 0 && exclude.length > 0) {
    throw new AbortError('--target and --exclude cannot be used together.', 'A run either plans only the targeted addresses or all but the excluded ones: give one of the two flags.');
  }
}
