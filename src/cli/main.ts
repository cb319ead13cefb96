/**
 * Entry point of the `cplane` binary: picks the sub-command, parses its flags
 * with node:util parseArgs, and turns errors into messages and exit codes.
 */
import { parseArgs } from 'node:util';
import type { Command, CommandContext } from './command.js';
import { commands } from './commands/index.js';
import { AbortError } from './errors.js';
import { describeError } from './describe-error.js';

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

export function globalHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.join(' ').length));
  return [
    'cplane: declarative provisioning for the control-plane API',
    '',
    'Usage: cplane <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    'Run `cplane <command> --help` for the options of one command.',
    '',
  ].join('\n');
}

export async function runCli(argv: string[], io: Omit<CommandContext, 'positionals' | 'values'>): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout.write(globalHelp());
    return 0;
  }
  if (argv[0] === '--version') {
    io.stdout.write('cplane 0.1.0\n');
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr.write(`Error: unknown command "${argv[0]}".\nRun \`cplane --help\` to see the commands.\n`);
    return 1;
  }
  const { command, rest } = found;
  if (!command.ownHelp && (rest.includes('--help') || rest.includes('-h'))) {
    io.stdout.write(usageOf(command));
    return 0;
  }
  try {
    const parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    return await command.run({ ...io, positionals: parsed.positionals, values: parsed.values });
  } catch (error) {
    const { message, exitCode } = describeError(error, command);
    io.stderr.write(message);
    return exitCode;
  }
}

// Run only when executed as the binary, not when imported by tests.
if (process.argv[1] && /cplane(\.js)?$|cli[\\/]main\.js$/.test(process.argv[1])) {
  const code = await runCli(process.argv.slice(2), {
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  });
  process.exitCode = code;
}

export { AbortError };
