/**
 * Workspaces: several states for one account and configuration (e.g. one per
 * region or per pipeline). The workspace is `default` unless `--workspace` or
 * CPLANE_WORKSPACE names another. A local state of another workspace lives at
 * `<dir>/.cplane/<account>/workspaces/<name>/state.json`; a state backend keys
 * its states by account and workspace (src/state/open-backend.ts, which also
 * says which names are allowed).
 */
import { checkWorkspace, DEFAULT_WORKSPACE } from '../state/index.js';
import type { CommandContext } from './command-context.js';

export function workspaceName(ctx: CommandContext): string {
  const flag = typeof ctx.values.workspace === 'string' ? ctx.values.workspace : undefined;
  return checkWorkspace(flag ?? (ctx.env.CPLANE_WORKSPACE || DEFAULT_WORKSPACE));
}
