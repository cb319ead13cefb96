/**
 * How every command finds its configuration folder, account and state file
 * (`locateState`), and what plan, apply and destroy all start from
 * (`openWorkspace`): the configuration loaded from its folder (with --var and
 * --var-file), the account's state, and an API client. Opening it reports
 * configuration errors together, with their lines; `close()` releases the
 * state lock and the connections.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ApiClient, ClientEvent } from '../api/client.js';
import { formatDiagnostic, type DesiredState, type LoadResult } from '../config/index.js';
import { registerUrlPasswords } from '../text/url-secrets.js';
import { loadConfiguration } from '../providers/index.js';
import { openState, type Allowance, type StateStore } from '../state/index.js';
import type { CommandContext } from './command-context.js';
import { connect, connectionSettings, type ConnectionSettings } from './connection.js';
import { loadConfigurationOffThread, type ConfigurationLoadOptions } from './configuration-off-thread.js';
import { AbortError } from '../errors.js';
import { ConfigInvalidError } from './errors.js';
import { variablesLoadOptions } from './variables-flags.js';
import { isPostgresUrl } from '../state/index.js';
import { workspaceName } from './workspace-name.js';
import { lockTimeoutMs } from './lock-timeout.js';
import { suggestedCommand } from '../text/escape-for.js';
import { collectGarbageAfterLoading } from './collect-garbage.js';

export interface StateLocation {
  /** Absolute configuration folder. */
  configDir: string;
  account?: string;
  /** An absolute state file, or a `postgres://` URL (kept as given: it may hold a password, printed only masked). */
  statePath?: string;
  workspace: string;
}

/** What the configuration says of its state: its `account:` and `state: { url }`. */
export interface ConfiguredState {
  account?: string;
  stateUrl?: string;
}

const flag = (ctx: CommandContext, name: string): string | undefined => {
  const value = ctx.values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The one way every command finds its state. The folder is [dir] (default: the current folder). The account
 * is --account, else $CPLANE_ACCOUNT, else the configuration's `account:` (read with --var and --var-file),
 * else the account of the one state kept under `<dir>/.cplane/`. The state is --state (a file, taken relative
 * to the current folder as users expect, or a `postgres://` URL), else $CPLANE_STATE, else the configuration's
 * `state: { url }`, else the default file; the workspace is --workspace, else $CPLANE_WORKSPACE, else
 * `default`. `configured` is asked only for what neither flag nor environment names.
 */
export async function locateState(
  ctx: CommandContext,
  dir: string | undefined,
  configured: () => Promise<ConfiguredState> | ConfiguredState,
): Promise<StateLocation> {
  const configDir = resolve(ctx.cwd, dir ?? '.');
  if (dir !== undefined && !statSync(configDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AbortError(
      `The configuration folder ${configDir} does not exist.`,
      'Give an existing folder as [dir], or leave it out to use the current one.',
    );
  }
  let fromConfig: ConfiguredState | undefined;
  const config = async () => (fromConfig ??= await configured());
  const state = flag(ctx, 'state') ?? (ctx.env.CPLANE_STATE || undefined) ?? (await config()).stateUrl;
  // Whatever the source, the URL's passwords are redacted from every message from now on.
  registerUrlPasswords(state);
  const statePath = state === undefined ? undefined : isPostgresUrl(state) ? state : resolve(ctx.cwd, state);
  const account =
    flag(ctx, 'account') ??
    (ctx.env.CPLANE_ACCOUNT || undefined) ??
    (await config()).account ??
    (statePath === undefined ? onlyStateAccount(configDir) : undefined);
  return { configDir, ...(account ? { account } : {}), ...(statePath !== undefined ? { statePath } : {}), workspace: workspaceName(ctx) };
}

/**
 * The account of the one state kept under `<dir>/.cplane/`, as a folder used with one account usually has.
 * With several, the user must choose (the error lists them); with none, the caller says what is missing.
 */
function onlyStateAccount(configDir: string): string | undefined {
  const folder = join(configDir, '.cplane');
  const accounts = (statSync(folder, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(folder, { withFileTypes: true }) : [])
    .filter((entry) => entry.isDirectory() && statSync(join(folder, entry.name, 'state.json'), { throwIfNoEntry: false })?.isFile())
    .map((entry) => entry.name)
    .sort();
  if (accounts.length > 1) {
    throw new AbortError(
      `${folder} holds the states of ${accounts.length} accounts: ${accounts.join(', ')}.`,
      'Choose one with --account ID or CPLANE_ACCOUNT.',
    );
  }
  return accounts[0];
}

/**
 * What the configuration in `configDir` says of its state, for the commands that only use the state: a
 * folder that does not load (or has no configuration) says nothing, since these commands do not need it.
 */
export async function configuredState(ctx: CommandContext, configDir: string): Promise<ConfiguredState> {
  const loaded = await loadConfiguration(configDir, variablesLoadOptions(ctx));
  const { desired, deployments, account, diagnostics } = loaded;
  // A configuration file with errors is said as `validate` says it (file:line:col), not read as "no account given"; a
  // folder with no configuration (the state alone), or a variable left unset (the state is then chosen among those present), is not.
  if (diagnostics.some((d) => d.severity === 'error' && d.range && d.code !== 'variable_unset'))
    checkedConfiguration(ctx, configDir, { lock: false, command: 'cplane' }, loaded);
  refuseUnchosenDeployments(ctx, configDir, deployments);
  // The account is known even when a later stage (a reference) has errors: `init` reports those, not a missing account.
  return { ...(account ? { account } : {}), ...(desired?.stateUrl ? { stateUrl: desired.stateUrl } : {}) };
}

/**
 * A configuration with `deployments:` is run for one of them (`ctx.deployment`, set by --all and --deployment NAME):
 * without one, its account is not known. The hint is the command as it was run, with the flag to add; every command it
 * names takes that flag (test/cli/suggested-commands.test.ts walks them).
 */
export function refuseUnchosenDeployments(
  ctx: CommandContext,
  dir: string,
  deployments: readonly { name: string }[] | undefined,
  fallback = 'cplane',
): void {
  if (!deployments || ctx.deployment) return;
  const names = deployments.map((d) => d.name);
  if (names.length === 0) {
    throw new AbortError(
      `The configuration in ${dir} has \`deployments:\` with no deployment in it.`,
      'Declare one under it (dev: { account: ID }), or remove `deployments:` to run for --account or CPLANE_ACCOUNT (docs/deployments.md).',
    );
  }
  const again = (...flags: string[]) =>
    `\`${ctx.command ? suggestedCommand([...ctx.command.name, ...wordsWith(ctx, flags)]) : `${fallback} ${flags.join(' ')}`}\``;
  const one = again('--deployment', names[0]!);
  throw new AbortError(
    `The configuration in ${dir} has deployments (${names.join(', ')}): each names its own account, so one is not chosen by --account or CPLANE_ACCOUNT.`,
    ctx.command?.deployments === 'one'
      ? `Run it for one of them: ${one} (docs/deployments.md).`
      : `Run ${again('--all')} for all of them, or ${one} for one (docs/deployments.md).`,
  );
}

/** The command's words as typed, with `flags` added before a `--` (what follows it is another program's), so the hint runs as printed. */
function wordsWith(ctx: CommandContext, flags: string[]): string[] {
  const typed = ctx.command?.args;
  if (!typed) {
    const own = ctx.afterTerminator ? ctx.positionals.slice(0, ctx.positionals.length - ctx.afterTerminator.length) : ctx.positionals;
    return [...own, ...flags];
  }
  const end = typed.indexOf('--');
  return end === -1 ? [...typed, ...flags] : [...typed.slice(0, end), ...flags, ...typed.slice(end)];
}

/** Where the state of a command that only uses the state is; `dir` is its [dir] positional. */
export function locateStateOnly(ctx: CommandContext, dir: string | undefined): Promise<StateLocation> {
  return locateState(ctx, dir, () => configuredState(ctx, resolve(ctx.cwd, dir ?? '.')));
}

/** Opens the state of a command that reads or repairs only the state; `dir` is its [dir] positional. */
export async function openStateFor(
  ctx: CommandContext,
  dir: string | undefined,
  options: { lock: boolean; command: string },
): Promise<StateStore> {
  const lockTimeout = options.lock ? { lockTimeoutMs: lockTimeoutMs(ctx.values) } : {};
  return openState({
    ...(await locateStateOnly(ctx, dir)),
    env: ctx.env,
    command: options.command,
    lock: options.lock,
    mustExist: true,
    ...lockTimeout,
  });
}

export interface Workspace {
  desired: DesiredState;
  state: StateStore;
  client: ApiClient;
  account: string;
  workspace: string;
  /** Absolute configuration folder. */
  dir: string;
  /** The state location asked for (--state, CPLANE_STATE, `state: { url }`), as given; undefined for the default file. */
  statePath: string | undefined;
  close(): Promise<void>;
}

export interface WorkspaceOptions {
  /** Take the state's write lock (apply, destroy); plan reads without it. */
  lock: boolean;
  /** With `lock`: hold only these addresses, beside other applies (a saved plan's apply; docs/state.md, "Locks"). */
  addresses?: readonly string[];
  /** Command line recorded in the lock, e.g. `cplane apply`. */
  command: string;
  /** Who allowed the run (a saved plan's apply), recorded with the state's versions. */
  allowance?: Allowance;
  onClientEvent?: (event: ClientEvent) => void;
  /** Variable values of a saved plan (win over every other source). */
  savedVariables?: DesiredState['variables'];
}

export async function openWorkspace(ctx: CommandContext, options: WorkspaceOptions): Promise<Workspace> {
  const dir = workspaceDir(ctx);
  // Check the connection settings before reading anything, so a missing variable is the first thing said.
  const settings = connectionSettings(ctx);
  const desired = checkedConfiguration(ctx, dir, options, await loadConfiguration(dir, workspaceLoadOptions(ctx, options)));
  const location = await workspaceLocation(ctx, desired);
  return openRest(ctx, options, {
    desired,
    dir,
    location,
    client: () => connect(ctx, clientSettings(location.account, settings, options)),
  });
}

/**
 * `openWorkspace`, with the account read by `read` while the configuration loads on a worker thread
 * (configuration-off-thread.ts): for a command whose requests need the account but not the configuration
 * (`cplane access report`), the requests' waiting and the configuration's parsing overlap.
 *
 * The account is needed before the configuration says it, so the reads start in the account the workspace
 * knows without it: --account, else CPLANE_ACCOUNT (both win over the configuration's `account:` anyway), else the
 * account of the one state under `<dir>/.cplane/` (with none, the configuration loads in this thread first, and the
 * account is read after it, as openWorkspace then `read`). When the account the configuration then gives is another (or
 * none was known), those reads are discarded and `read` runs again in the right one: correct first, fast in the
 * common case. The configuration's errors are said first, as when nothing was read before it: a failed read is
 * thrown only once the configuration has loaded, and after the state has opened, as `openWorkspace` then `read`.
 * A request may thus be sent for a configuration that turns out invalid; nothing is written.
 */
export async function openWorkspaceWhileReading<T>(
  ctx: CommandContext,
  options: WorkspaceOptions,
  read: (client: ApiClient, account: string) => Promise<T>,
): Promise<{ workspace: Workspace; read: T }> {
  const dir = workspaceDir(ctx);
  const settings = connectionSettings(ctx);
  // Bad --var flags are said before anything is sent.
  const loadOptions = workspaceLoadOptions(ctx, options);
  const guess = accountKnownWithoutConfiguration(ctx, dir);
  const early = guess === undefined ? undefined : earlyReads(() => connect(ctx, clientSettings(guess, settings, options)), guess, read);
  // Nothing to overlap without an account: the configuration loads here, as for openWorkspace (no worker to start, no clone).
  const loading = early ? loadConfigurationOffThread(dir, loadOptions) : loadConfiguration(dir, loadOptions);
  let workspace: Workspace;
  let kept: typeof early;
  try {
    const loaded = await loading;
    performance.mark('cplane:configuration-loaded');
    const desired = checkedConfiguration(ctx, dir, options, loaded);
    const location = await workspaceLocation(ctx, desired);
    kept = early && early.account === location.account ? early : undefined;
    workspace = await openRest(ctx, options, {
      desired,
      dir,
      location,
      client: () => kept?.client ?? connect(ctx, clientSettings(location.account, settings, options)),
    });
  } catch (error) {
    await early?.client.close();
    throw error;
  }
  if (early && !kept) await early.client.close();
  return { workspace, read: await closingOnError(workspace, kept ? kept.settled : read(workspace.client, workspace.account)) };
}

/**
 * Reads started before the configuration is known, their failure kept for later (never an unhandled rejection). A
 * client that cannot be made (an insecure URL) reads nothing now: making it again after the configuration loaded
 * says why, after the configuration's errors, as openWorkspace does.
 */
function earlyReads<T>(client: () => ApiClient, account: string, read: (client: ApiClient, account: string) => Promise<T>) {
  let made: ApiClient;
  try {
    made = client();
  } catch {
    return undefined;
  }
  const reading = read(made, account);
  reading.catch(() => undefined);
  return { client: made, account, settled: reading };
}

async function closingOnError<T>(workspace: Workspace, reading: Promise<T>): Promise<T> {
  try {
    return await reading;
  } catch (error) {
    await workspace.close();
    throw error;
  }
}

/** The account as locateState would find it without the configuration's `account:`: a guess the configuration confirms. */
function accountKnownWithoutConfiguration(ctx: CommandContext, dir: string): string | undefined {
  const known = flag(ctx, 'account') ?? (ctx.env.CPLANE_ACCOUNT || undefined);
  if (known !== undefined) return known;
  if (ctx.deployment) return undefined;
  try {
    return onlyStateAccount(dir);
  } catch {
    // Several states: the configuration's `account:` (or its error) decides, as without the overlap.
    return undefined;
  }
}

function workspaceDir(ctx: CommandContext): string {
  if (ctx.positionals.length > 1)
    throw new AbortError(`Unexpected arguments: ${ctx.positionals.slice(1).join(' ')}.`, 'Give at most one configuration folder.');
  return resolve(ctx.cwd, ctx.positionals[0] ?? '.');
}

function workspaceLoadOptions(ctx: CommandContext, options: WorkspaceOptions): ConfigurationLoadOptions {
  const flagAccount = flag(ctx, 'account');
  return {
    ...variablesLoadOptions(ctx),
    ...(flagAccount ? { account: flagAccount } : {}),
    ...(options.savedVariables ? { savedVariables: options.savedVariables } : {}),
  };
}

const clientSettings = (account: string, settings: ConnectionSettings, options: WorkspaceOptions) => ({
  account,
  settings,
  ...(options.onClientEvent ? { onEvent: options.onClientEvent } : {}),
});

/** The loaded configuration, its warnings printed; its errors (or deployments without --deployment) thrown together. */
function checkedConfiguration(
  ctx: CommandContext,
  dir: string,
  options: WorkspaceOptions,
  { desired, diagnostics, deployments }: LoadResult,
): DesiredState {
  const color = ctx.stderr.isTTY === true && !ctx.env.NO_COLOR;
  refuseUnchosenDeployments(ctx, dir, deployments, options.command);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  for (const warning of diagnostics.filter((d) => d.severity === 'warning')) ctx.stderr.write(`${formatDiagnostic(warning, { color })}\n`);
  if (!desired || errors.length > 0) {
    throw new ConfigInvalidError(
      `The configuration in ${dir} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n\n${errors.map((d) => formatDiagnostic(d, { color })).join('\n')}`,
      'Fix them and run the command again (`cplane validate` checks the configuration offline).',
      errors,
    );
  }
  return desired;
}

async function workspaceLocation(ctx: CommandContext, desired: DesiredState): Promise<StateLocation & { account: string }> {
  const location = await locateState(ctx, ctx.positionals[0], () => ({ account: desired.account, stateUrl: desired.stateUrl }));
  const account = location.account;
  if (!account) {
    throw new AbortError(
      'No account: CPLANE_ACCOUNT is not set and the configuration gives none.',
      'Set CPLANE_ACCOUNT, pass --account ID, or add `account:` to the configuration.',
    );
  }
  return { ...location, account };
}

async function openRest(
  ctx: CommandContext,
  options: WorkspaceOptions,
  opened: { desired: DesiredState; dir: string; location: StateLocation & { account: string }; client: () => ApiClient },
): Promise<Workspace> {
  const { desired, dir, location } = opened;
  const { account } = location;
  const state = await openState({
    ...location,
    env: ctx.env,
    command: options.command,
    lock: options.lock,
    ...(options.lock ? { lockTimeoutMs: lockTimeoutMs(ctx.values) } : {}),
    ...(options.allowance ? { allowance: options.allowance } : {}),
    ...(options.lock && options.addresses ? { addresses: options.addresses } : {}),
  });
  let client: ApiClient;
  try {
    client = opened.client();
  } catch (error) {
    await state.close();
    throw error;
  }
  collectGarbageAfterLoading();
  return {
    desired,
    state,
    client,
    account,
    workspace: location.workspace,
    dir,
    statePath: location.statePath,
    async close() {
      await Promise.allSettled([state.close(), client.close()]);
    },
  };
}
