/**
 * Which backend a state location names: a `postgres://` URL is a PostgreSQL
 * state (one per account and workspace), anything else a local file (by
 * default `<dir>/.cplane/<account>/state.json`; another workspace than
 * `default` gets `<dir>/.cplane/<account>/workspaces/<name>/state.json`).
 */
import { isAbsolute, join, relative } from 'node:path';
import type { StateBackend } from './backend.js';
import { StateError } from './errors.js';
import { LocalFileBackend } from './local-file-backend.js';
import { resolveStatePath, stateFolder } from './paths.js';
import { DEFAULT_WORKSPACE, isPostgresUrl, PostgresBackend } from './postgres/index.js';

const WORKSPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface StateLocationOptions {
  configDir: string;
  account?: string;
  /** A file path or a `postgres://` URL. */
  statePath?: string;
  workspace?: string;
  /** How long a command that takes the lock waits while another run holds it (`--lock-timeout`); 0 by default. */
  lockTimeoutMs?: number;
}

export interface OpenedBackend {
  backend: StateBackend;
  /** For messages: the file path, or the URL with its password masked. */
  location: string;
  /** True for a file under `<dir>/.cplane/` (by default or named so), which gets its .gitignore. */
  inStateFolder: boolean;
}

export function checkWorkspace(workspace: string): string {
  if (!WORKSPACE_PATTERN.test(workspace)) {
    throw new StateError(
      'STATE_WORKSPACE_INVALID',
      `The workspace name ${JSON.stringify(workspace)} is not allowed.`,
      'Workspace names hold letters, digits, ".", "_" and "-" (at most 64), starting with a letter or digit.',
    );
  }
  return workspace;
}

export function openBackend(options: StateLocationOptions): OpenedBackend {
  const workspace = checkWorkspace(options.workspace ?? DEFAULT_WORKSPACE);
  if (options.statePath && isPostgresUrl(options.statePath)) {
    if (!options.account) {
      throw new StateError(
        'STATE_ACCOUNT_MISSING',
        'No account given: a PostgreSQL state is kept per account and workspace.',
        'Pass --account ID or set CPLANE_ACCOUNT (or `account:` in the configuration).',
      );
    }
    const backend = new PostgresBackend({ url: options.statePath, account: options.account, workspace });
    return { backend, location: backend.location, inStateFolder: false };
  }
  let path = resolveStatePath(options);
  if (!options.statePath && workspace !== DEFAULT_WORKSPACE)
    path = join(stateFolder(options.configDir), options.account!, 'workspaces', workspace, 'state.json');
  const backend = new LocalFileBackend(path);
  // By where the file is, not by how it was named: `apply PLANFILE` names the plan's state by its path.
  const inFolder = relative(stateFolder(options.configDir), path);
  return { backend, location: path, inStateFolder: !inFolder.startsWith('..') && !isAbsolute(inFolder) };
}
