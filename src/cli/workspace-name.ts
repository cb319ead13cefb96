/**
 * Workspaces: several states for one account and configuration (e.g. one per
 * region or per pipeline). The workspace is `default` unless `--workspace` or
 * CPLANE_WORKSPACE names another. A local state of another workspace lives at
 * `<dir>/.cplane/<account>/workspaces/<name>/state.json`; a state backend keys
 * its states by account and workspace.
 */
import type { CommandContext } from './command.js';
import { AbortError } from './errors.js';

export const DEFAULT_WORKSPACE = 'default';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function workspaceName(ctx: CommandContext): string {
  const flag = typeof ctx.values.workspace === 'string' ? ctx.values.workspace : undefined;
  const name = flag ?? (ctx.env.CPLANE_WORKSPACE || DEFAULT_WORKSPACE);
  if (!NAME.test(name)) {
    throw new AbortError(
      `The workspace name ${JSON.stringify(name)} (from ${flag !== undefined ? '--workspace' : 'CPLANE_WORKSPACE'}) is not valid.`,
      'A workspace name has 1 to 64 letters, digits, ".", "_" or "-", and starts with a letter or digit.',
    );
  }
  return name;
}
