/**
 * Entry point of the `cplane` binary: picks the sub-command, parses its flags
 * with node:util parseArgs, and turns errors into messages and exit codes.
 * It loads only the command list (plain data); the module of the command that
 * runs is imported after its flags are parsed, so `--help` costs next to nothing.
 */
import { parseArgs } from 'node:util';
import { didYouMean } from '../text/suggest.js';
import { version } from '../version.js';
import type { Command } from './command.js';
import type { CommandContext } from '../session/command-context.js';
import { commands } from './commands/index.js';
import { AbortError } from '../errors.js';
import { describeError } from './report/describe-error.js';
import { registerOwnSecrets } from '../config/values/own-variables.js';
import { registerUrlPasswords } from '../text/url-secrets.js';

type Io = Omit<CommandContext, 'positionals' | 'values'>;

/** What a group of sub-commands (`cplane state`) is for, printed above its list. */
const groupSummaries: Record<string, string> = {
  state: 'Look at and repair the state without touching remote objects.',
  access: "Who can read each record, and taking a person's access away.",
};

const nameOf = (command: Command) => command.name.join(' ');

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  // Longest match first, so `state list` wins over a hypothetical `state`.
  const sorted = [...commands].sort((a, b) => b.name.length - a.name.length);
  for (const command of sorted) {
    if (command.name.every((word, i) => argv[i] === word)) {
      return { command, rest: argv.slice(command.name.length) };
    }
  }
  return undefined;
}

function usageOf(command: Command): string {
  const lines = [`Usage: cplane ${command.usage}`, '', command.summary];
  if (command.help?.length) lines.push('', 'Options:', ...command.help.map((l) => `  ${l}`));
  return lines.join('\n') + '\n';
}

function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`);
}

export function globalHelp(): string {
  return [
    'cplane: declarative provisioning for the control-plane API',
    '',
    'Usage: cplane <command> [options]',
    '',
    'Commands:',
    ...table(commands.map((c) => [nameOf(c), c.summary])),
    '',
    'Run `cplane <command> --help` (or `cplane help <command>`) for the options of one command.',
    '',
  ].join('\n');
}

/** `cplane state` alone: the sub-commands of the group. */
export function groupHelp(group: string): string {
  const members = commands.filter((c) => c.name.length > 1 && c.name[0] === group);
  return [
    `Usage: cplane ${group} <subcommand> [options]`,
    '',
    groupSummaries[group] ?? `The ${group} commands.`,
    '',
    'Subcommands:',
    ...table(members.map((c) => [c.name.slice(1).join(' '), c.summary])),
    '',
    `Run \`cplane ${group} <subcommand> --help\` for the options of one.`,
    '',
  ].join('\n');
}

const groups = () => new Set(commands.filter((c) => c.name.length > 1).map((c) => c.name[0]!));

/** The words a user can type first: single-word commands and group names. */
const firstWords = () => [...new Set(commands.map((c) => c.name[0]!))];

/** Says that `argv` names no command, with the closest ones. Returns the exit code. */
function unknownCommand(argv: string[], io: Io): number {
  const [first = '', second] = argv;
  if (groups().has(first) && second !== undefined) {
    const subcommands = commands.filter((c) => c.name[0] === first).map((c) => c.name[1]!);
    const hint = didYouMean(second, subcommands).replace(/"([^"]+)"/g, `"${first} $1"`);
    io.stderr.write(`Error: unknown command "${first} ${second}"${hint || '.'}\nRun \`cplane ${first}\` to see its subcommands.\n`);
    return 1;
  }
  io.stderr.write(
    `Error: unknown command "${first}"${didYouMean(first, firstWords()) || '.'}\nRun \`cplane --help\` to see the commands.\n`,
  );
  return 1;
}

/** Help for the words after `cplane help`, or after a command followed by --help. Returns the exit code. */
function help(words: string[], io: Io): number {
  if (words.length === 0) {
    io.stdout.write(globalHelp());
    return 0;
  }
  const found = findCommand(words);
  if (found && found.rest.length === 0) {
    io.stdout.write(usageOf(found.command));
    return 0;
  }
  if (words.length === 1 && groups().has(words[0]!)) {
    io.stdout.write(groupHelp(words[0]!));
    return 0;
  }
  return unknownCommand(words, io);
}

/**
 * `--clock-offset -25d` as `--clock-offset=-25d`: parseArgs refuses a value that starts with `-` as ambiguous,
 * but a minus followed by a digit is never a flag.
 */
function joinNegativeValues(args: string[], command: Command): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') return [...out, ...args.slice(i)];
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : undefined;
    const next = args[i + 1];
    if (name !== undefined && command.options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${args[i]}=${next}`);
      i++;
    } else out.push(args[i]!);
  }
  return out;
}

/** parseArgs' "Unknown option" error, in our words and with the closest flag of the command. */
function unknownFlag(error: unknown, command: Command): string | undefined {
  if (!(error instanceof Error) || (error as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return undefined;
  const flag = /Unknown option '([^']+)'/.exec(error.message)?.[1];
  if (!flag) return undefined;
  const name = flag.replace(/^-+/, '');
  const hint = didYouMean(name, Object.keys(command.options)).replace(/"([^"]+)"/g, '--$1');
  return `Error: unknown flag ${flag} for \`cplane ${nameOf(command)}\`${hint || '.'}\nRun \`cplane ${nameOf(command)} --help\` for the options.\n`;
}

/**
 * The command `argv` (the words after `cplane`) names, and its flags parsed as a run parses them; throws parseArgs'
 * error for a flag the command does not take. test/cli/suggested-commands.test.ts checks every suggested command with it.
 */
export function parseCommandLine(
  argv: string[],
): { command: Command; positionals: string[]; values: CommandContext['values'] } | undefined {
  const found = findCommand(argv);
  if (!found) return undefined;
  const parsed = parseArgs({
    args: joinNegativeValues(found.rest, found.command),
    options: found.command.options,
    allowPositionals: true,
    strict: true,
  });
  return { command: found.command, positionals: parsed.positionals, values: parsed.values };
}

export async function runCli(argv: string[], io: Io): Promise<number> {
  // Known before anything can print: these values are redacted from every message of the run.
  registerOwnSecrets(io.env);
  // A URL on the command line (--state, state push/pull/migrate's locations) may hold a password.
  for (const arg of argv) registerUrlPasswords(arg.replace(/^--[\w-]+=/, ''));
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h') return help([], io);
  if (first === 'help') return help(argv.slice(1), io);
  if (first === '--version' || first === 'version') {
    io.stdout.write(`cplane ${version}\n`);
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    if (groups().has(first) && (argv.length === 1 || argv[1]!.startsWith('-'))) return help([first], io);
    return unknownCommand(argv, io);
  }
  const { command, rest } = found;
  // What follows `--` belongs to another program (`cplane run -- COMMAND --help`).
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (!command.ownHelp && (own.includes('--help') || own.includes('-h'))) return help(command.name, io);
  try {
    const parsed = parseArgs({
      args: joinNegativeValues(rest, command),
      options: command.options,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
    // A command with its own help (`cplane api OPERATION --help`) still has the list's help when named alone.
    if (command.ownHelp && parsed.values.help === true && parsed.positionals.length === 0) return help(command.name, io);
    const optionOrder = parsed.tokens.flatMap((token) => ('name' in token ? [token.name] : []));
    const terminator = parsed.tokens.find((token) => token.kind === 'option-terminator');
    const afterTerminator = terminator
      ? parsed.tokens.flatMap((token) => (token.kind === 'positional' && token.index > terminator.index ? [token.value] : []))
      : undefined;
    const module = await command.load();
    // Copies io's property descriptors, not their values, so a lazy `stdin` stays lazy.
    const ctx = Object.defineProperties(
      {
        command: { name: command.name, args: rest, ...(command.deployments ? { deployments: command.deployments.runs } : {}) },
        positionals: parsed.positionals,
        values: parsed.values,
        optionOrder,
        ...(afterTerminator ? { afterTerminator } : {}),
      },
      Object.getOwnPropertyDescriptors(io),
    ) as CommandContext;
    // --all and --deployment NAME: the command once per deployment of the configuration (each-deployment.ts).
    if (
      command.deployments &&
      !command.deployments.unless?.(parsed.values) &&
      (parsed.values.all === true || parsed.values.deployment !== undefined)
    ) {
      return await (await import('./deployments/each.js')).runForDeployments(ctx, command, module);
    }
    return await module.run(ctx);
  } catch (error) {
    const flagMessage = unknownFlag(error, command);
    if (flagMessage) {
      io.stderr.write(flagMessage);
      return 1;
    }
    const { message, exitCode } = describeError(error, command);
    io.stderr.write(message);
    return exitCode;
  }
}

// Run only when executed as the binary, not when imported by tests. Not a top-level await: the bundle
// is CommonJS (scripts/bundle.mjs), and a command's chunk needs this module evaluated before it loads.
/**
 * A reader that goes away (`cplane output | head -4`) closes the pipe: what is left to print has nowhere to go.
 * Without a listener the write's EPIPE is an unhandled 'error' event that crashes the run with a stack trace;
 * here it is dropped and the command runs to its own end, so an apply is never cut short between writes.
 */
function dropOutputToClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}

// Started as a program: bin/cplane.js, dist/cli/main.js, or the GitHub Action's bundle (action/dist/cplane.mjs).
if (process.argv[1] && /cplane(\.m?js)?$|cli[\\/]main\.js$/.test(process.argv[1])) {
  dropOutputToClosedPipe(process.stdout);
  dropOutputToClosedPipe(process.stderr);
  void runCli(process.argv.slice(2), {
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    // Lazy: creating process.stdin costs about 0.2 s at exit when it is a pipe or a file, and only an
    // interactive apply reads it.
    get stdin() {
      return process.stdin;
    },
  }).then((code) => {
    process.exitCode = code;
  });
}

export { AbortError };
