/**
 * Where the state is, from the flags every state-using command shares:
 * `--state` (a file path or a `postgres://` URL), else CPLANE_STATE, else the
 * configuration's `state: { url }`, else the default file; and the workspace,
 * `--workspace`, else CPLANE_WORKSPACE, else `default`. A path is taken
 * relative to the current folder; a URL is kept as given (it may hold a
 * password, so it is printed only masked).
 */
import { resolve } from 'node:path';
import type { CommandContext, OptionSpec } from './command.js';
import { isPostgresUrl } from '../state/postgres/index.js';

export const stateLocationOptions: OptionSpec = {
  state: { type: 'string' },
  workspace: { type: 'string' },
};

export const stateLocationHelp = [
  '--state PATH|URL    state file, or postgres://USER:PASSWORD@HOST/DB?sslmode=verify-full&schema=cplane (default: $CPLANE_STATE, else `state: { url }` in the configuration, else <dir>/.cplane/<account>/state.json)',
  '--workspace NAME    one state per account and workspace (default: $CPLANE_WORKSPACE, else "default")',
];

export function chosenState(ctx: CommandContext, configUrl?: string): { statePath?: string; workspace?: string } {
  const given = (typeof ctx.values.state === 'string' ? ctx.values.state : undefined) ?? (ctx.env.CPLANE_STATE || undefined) ?? configUrl;
  const workspace = (typeof ctx.values.workspace === 'string' ? ctx.values.workspace : undefined) ?? (ctx.env.CPLANE_WORKSPACE || undefined);
  return {
    ...(given === undefined ? {} : { statePath: isPostgresUrl(given) ? given : resolve(ctx.cwd, given) }),
    ...(workspace === undefined ? {} : { workspace }),
  };
}
