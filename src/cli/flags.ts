/**
 * The flags several commands share, as plain data (parseArgs options and one
 * help line per flag). This module imports nothing, so the command list can
 * name every command's flags without loading what the commands run.
 */
import type { OptionSpec } from './command.js';

/** The API address, token and account (commands that send a request or a few: api, mcp, read, run). */
export const endpointOptions: OptionSpec = {
  'base-url': { type: 'string' },
  token: { type: 'string' },
  account: { type: 'string' },
  'allow-insecure-http': { type: 'boolean' },
};

export const endpointHelp = [
  '--base-url URL      API address without /v1 (default: $CPLANE_BASE_URL)',
  '--token TOKEN       API token (prefer $CPLANE_TOKEN: a flag shows in the process list and shell history)',
  '--account ID        account to work in (default: $CPLANE_ACCOUNT, then the configuration, then the one state under <dir>/.cplane/)',
  '--allow-insecure-http  send the token over plain http to another machine (or CPLANE_ALLOW_INSECURE_HTTP=1)',
];

/** The endpoint's flags and the requests in flight (commands that read or write a whole account). */
export const connectionOptions: OptionSpec = { ...endpointOptions, parallelism: { type: 'string' } };

export const connectionHelp = [...endpointHelp, '--parallelism N     requests in flight at once (default 10)'];

/** `--var` and `--var-file` (every command that reads the configuration, or its account). */
export const variablesOptions: OptionSpec = {
  var: { type: 'string', multiple: true },
  'var-file': { type: 'string', multiple: true },
};

export const variablesHelp = [
  '--var NAME=VALUE    set a variable (repeatable); wins over defaults and CPLANE_VAR_*',
  '--var-file FILE     read variables from a YAML file (repeatable); with --var, the last one given wins',
];

const stateFlagsHelp = [
  '--state PATH|URL    state file, or postgres://USER:PASSWORD@HOST/DB?sslmode=verify-full&schema=cplane (default: $CPLANE_STATE, else `state: { url }` in the configuration, else <dir>/.cplane/<account>/state.json)',
  '--workspace NAME    one state per account and workspace (default: $CPLANE_WORKSPACE, else `default`)',
];

/** Plan, apply and destroy: the configuration, its state and the API. */
export const workspaceOptions: OptionSpec = {
  ...connectionOptions,
  ...variablesOptions,
  state: { type: 'string' },
  workspace: { type: 'string' },
};

export const workspaceHelp = [...connectionHelp, ...variablesHelp, ...stateFlagsHelp];

/** `--github` (validate, plan, apply, destroy): reports for GitHub Actions. */
export const githubOptions: OptionSpec = { github: { type: 'boolean' } };

export const githubHelp =
  '--github            for GitHub Actions: Markdown to $GITHUB_STEP_SUMMARY, ::error annotations, step outputs to $GITHUB_OUTPUT';

/** Commands that only read or repair the state (state list/show/rm/mv, output, force-unlock). */
export const stateOptions: OptionSpec = {
  account: { type: 'string' },
  state: { type: 'string' },
  workspace: { type: 'string' },
  ...variablesOptions,
};

export const stateHelp = [
  '[dir]               configuration folder (default: the current folder)',
  '--account ID        account whose state to use (default: $CPLANE_ACCOUNT, then the configuration, then the one state under <dir>/.cplane/)',
  ...stateFlagsHelp,
  ...variablesHelp,
];

/** `--lock-timeout` (every command that takes the state lock). */
export const lockOptions: OptionSpec = { 'lock-timeout': { type: 'string' } };

export const lockHelp =
  "--lock-timeout DURATION  wait up to DURATION (e.g. 30s, 5m) while another run holds the state lock, or an address a saved plan's apply needs (default 0s: fail at once)";

/** `--all` and `--deployment` (every command that reads a configuration): the deployments of its `deployments:` (docs/deployments.md). */
export const chooseDeploymentOptions: OptionSpec = {
  all: { type: 'boolean' },
  deployment: { type: 'string', multiple: true },
};

const chooseDeploymentHelp = [
  "--all               every deployment of the configuration's deployments: (docs/deployments.md), each with its own account and state",
  '--deployment NAME   only this deployment (repeatable; with or without --all)',
];

/** The help of a command run once per deployment (cli/deployments/each.ts). */
export const eachDeploymentHelp = [
  ...chooseDeploymentHelp,
  '                    a section per deployment (JSON: { deployments: [{ deployment, account, exitCode, result }] }, CSV: a deployment column);',
  '                    one --deployment NAME alone prints as without deployments',
];

/** A command that needs one deployment (read, run, destroy...): `--deployment NAME`, once. */
export const oneDeploymentHelp =
  "--deployment NAME   the deployment of the configuration's deployments: to use: its account, workspace, variables and token";

/** plan and apply: --all and --deployment, and --changed. */
export const deploymentsOptions: OptionSpec = {
  ...chooseDeploymentOptions,
  changed: { type: 'boolean' },
  base: { type: 'string' },
};

export const deploymentsHelp = [
  ...chooseDeploymentHelp,
  '--changed           only the deployments a git diff touches (their var files; any other file of the folder or a module: all)',
  '--base REF          what --changed compares with (default HEAD: what is not committed yet), e.g. origin/main',
];
