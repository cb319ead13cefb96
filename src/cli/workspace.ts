/**
 * What plan, apply and destroy all start from: the configuration loaded from
 * its folder (with --var and --var-file), the account (flag, then environment,
 * then configuration), the account's state, and an API client. Opening it
 * reports configuration errors together, with their lines; `close()` releases
 * the state lock and the connections.
 */
import { resolve } from 'node:path';
import type { ApiClient, ClientEvent } from '../api/client.js';
import { formatDiagnostic, loadConfig, type DesiredState } from '../config/index.js';
import { openState, type StateStore } from '../state/index.js';
import type { CommandContext, OptionSpec } from './command.js';
import { accountOf, connect, connectionHelp, connectionOptions, connectionSettings } from './connection.js';
import { AbortError } from './errors.js';
import { chosenState, stateLocationHelp, stateLocationOptions } from './state-location.js';
import { variablesHelp, variablesLoadOptions, variablesOptions } from './variables-flags.js';

export const workspaceOptions: OptionSpec = {
  ...connectionOptions,
  ...variablesOptions,
  ...stateLocationOptions,
};

export const workspaceHelp = [
  ...connectionHelp,
  ...variablesHelp,
  ...stateLocationHelp,
];

export interface Workspace {
  desired: DesiredState;
  state: StateStore;
  client: ApiClient;
  account: string;
  /** Absolute configuration folder. */
  dir: string;
  close(): Promise<void>;
}

export interface WorkspaceOptions {
  /** Take the state's write lock (apply, destroy); plan reads without it. */
  lock: boolean;
  /** Command line recorded in the lock, e.g. `cplane apply`. */
  command: string;
  onClientEvent?: (event: ClientEvent) => void;
}

export async function openWorkspace(ctx: CommandContext, options: WorkspaceOptions): Promise<Workspace> {
  if (ctx.positionals.length > 1) throw new AbortError(`Unexpected arguments: ${ctx.positionals.slice(1).join(' ')}.`, 'Give at most one configuration folder.');
  const dir = resolve(ctx.cwd, ctx.positionals[0] ?? '.');
  // Check the connection settings before reading anything, so a missing variable is the first thing said.
  const settings = connectionSettings(ctx);
  const flagAccount = typeof ctx.values.account === 'string' ? ctx.values.account : undefined;
  const { desired, diagnostics } = await loadConfig(dir, {
    ...variablesLoadOptions(ctx),
    ...(flagAccount ? { account: flagAccount } : {}),
  });
  const color = ctx.stderr.isTTY === true && !ctx.env.NO_COLOR;
  const errors = diagnostics.filter((d) => d.severity === 'error');
  for (const warning of diagnostics.filter((d) => d.severity === 'warning')) ctx.stderr.write(`${formatDiagnostic(warning, { color })}\n`);
  if (!desired || errors.length > 0) {
    throw new AbortError(
      `The configuration in ${dir} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n\n${errors.map((d) => formatDiagnostic(d, { color })).join('\n')}`,
      'Fix them and run the command again (`cplane validate` checks the configuration offline).',
    );
  }
  const account = accountOf(ctx, desired.account);
  const state = await openState({ configDir: dir, account, env: ctx.env, command: options.command, lock: options.lock, ...chosenState(ctx, desired.stateUrl) });
  let client: ApiClient;
  try {
    client = connect(ctx, { account, settings, ...(options.onClientEvent ? { onEvent: options.onClientEvent } : {}) });
  } catch (error) {
    await state.close();
    throw error;
  }
  return {
    desired,
    state,
    client,
    account,
    dir,
    async close() {
      await Promise.allSettled([state.close(), client.close()]);
    },
  };
}
