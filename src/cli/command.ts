/**
 * The shape every `cplane` sub-command has. A command declares its flags for
 * node:util parseArgs and gets one context object: it never reads process.*
 * directly, so tests can run commands in-process as well as through the binary.
 */
import type { ParseArgsConfig } from 'node:util';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  /** Positional arguments after the command name (and sub-command name, if any). */
  positionals: string[];
  /** Parsed flags, as node:util parseArgs returns them. */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  /** Names of the flags in command-line order (repeats included), for flags whose interleaving matters (--var, --var-file). */
  optionOrder?: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** What a command's module exports: the part of the command that runs, loaded only when it runs. */
export interface CommandModule {
  /** Returns the process exit code: 0 ok, 1 error, 2 changes present (--detailed-exitcode). */
  run(ctx: CommandContext): Promise<number>;
}

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
  /** Imports the command's module, and with it everything the command needs. */
  load(): Promise<CommandModule>;
}
