/**
 * The shape every `cplane` sub-command has in the command list: its words,
 * help and flags for node:util parseArgs, and how to load the module that runs
 * it. What the module gets and returns is in src/session/command-context.ts.
 */
import type { ParseArgsConfig } from 'node:util';
import type { CommandModule } from '../session/command-context.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/**
 * A command as the command list declares it: light data that `cplane --help` and the flag parser read,
 * plus `load`, which imports the module that runs it only when it runs (see commands/index.ts).
 */
export interface Command {
  /** Words that select the command, e.g. ['state', 'list']. */
  name: string[];
  summary: string;
  /** One usage line without the leading `cplane`, e.g. `plan [dir] [--out FILE]`. */
  usage: string;
  /** Lines printed under the usage by `cplane <cmd> --help`: one per flag. */
  help?: string[];
  options: OptionSpec;
  /** The command prints its own --help (e.g. `cplane api <operation> --help`, generated per operation). */
  ownHelp?: boolean;
  /**
   * How `--all` and `--deployment NAME` run it (cli/deployments/each.ts, docs/deployments.md); absent when the command
   * has no such flags, or handles them itself (plan, apply).
   */
  deployments?: DeploymentRuns;
  /** Imports the command's module, and with it everything the command needs. */
  load(): Promise<CommandModule>;
}

/** A command's runs for the deployments of a configuration (`deployments:`). */
export interface DeploymentRuns {
  /** `each`: once per chosen deployment, the outputs combined; `one`: it needs one deployment, given as `--deployment NAME`. */
  runs: 'each' | 'one';
  /** Its configuration folder among its positionals (default: the first), for a command with other arguments. */
  dir?: (positionals: readonly string[]) => string | undefined;
  /** `--out` names a folder: DIR/NAME.plan.json per deployment, as `plan --all --out DIR` saves them, for `cplane apply DIR`. */
  outFolder?: boolean;
  /** One deployment after another (init: they may create the one state key file). */
  inTurn?: boolean;
  /** Flags with which the command reads no configuration, so it is not run per deployment (read and run with --manifest). */
  unless?: (values: Record<string, unknown>) => boolean;
}
