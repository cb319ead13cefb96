import type { Limiter } from '../api/limiter.js';
import type { Plan, PlanRun } from '../plan-model/plan.js';

/**
 * What a running command sees and returns. A command never reads process.*
 * directly: it gets one context object, so tests (and the MCP server) run
 * commands in-process as well as through the binary.
 */

export interface CommandContext {
  /**
   * The command as the CLI named it (`['state', 'list']`) and how it runs for deployments (`each` takes --all and
   * --deployment, `one` only --deployment: cli/command.ts), for hints that suggest running it again with those flags.
   */
  command?: { name: string[]; deployments?: 'each' | 'one'; /** The words after the name, as typed. */ args?: string[] };
  /** Positional arguments after the command name (and sub-command name, if any). */
  positionals: string[];
  /** Parsed flags, as node:util parseArgs returns them. */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  /** Names of the flags in command-line order (repeats included), for flags whose interleaving matters (--var, --var-file). */
  optionOrder?: string[];
  /** The positionals after `--`, when it was given (also at the end of `positionals`): another program's arguments (`cplane run`). */
  afterTerminator?: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /**
   * Set when the command runs for one deployment of the configuration's `deployments:` (`plan --all`,
   * `apply --all`, a deployment's saved plan): its name (the configuration gives its account, workspace and
   * variables), and the limit of requests in flight it shares with the other deployments of the run.
   */
  deployment?: {
    name: string;
    sharedLimiter?: Limiter;
    /** The token it chooses (`token: NAME`): CPLANE_TOKEN_<NAME>, read instead of CPLANE_TOKEN, never as well. */
    tokenName?: string;
    /** The address its configuration says it is at (`baseUrl`): checked against where its token is bound, never used as such. */
    baseUrl?: string;
    /** Says in a few words what this deployment's run came to, for the run's line in the fleet's summary (cli/deployments/each.ts). */
    note?: (words: string) => void;
    /** `plan --all` (and a run over deployments that saves plans in a folder): every deployment the run chose, recorded in each plan's origin for `plan --merge` and `apply DIR`. */
    fleet?: string[];
    /** The CI run it belongs to (`--run`, GITHUB_RUN_ID): recorded in each saved plan, for `plan --merge`. */
    run?: PlanRun;
    /** The deployment's `autoApprove` rule (apply --all): whether its plan may be applied without asking, and if not why. */
    autoApprove?: (plan: Plan) => { approved: boolean; why?: string };
  };
}

/** What a command's module exports: the part of the command that runs, loaded only when it runs. */
export interface CommandModule {
  /** Returns the process exit code: 0 ok, 1 error, 2 changes present (--detailed-exitcode). */
  run(ctx: CommandContext): Promise<number>;
}
