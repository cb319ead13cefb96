/**
 * The `--var` and `--var-file` flags of every command that loads a
 * configuration (validate, plan, apply, destroy), and how they become
 * loadConfig options.
 */
import type { LoadOptions, VariableArgument } from '../config/index.js';
import type { CommandContext, OptionSpec } from './command.js';
import { AbortError } from './errors.js';

export const variablesOptions: OptionSpec = {
  var: { type: 'string', multiple: true },
  'var-file': { type: 'string', multiple: true },
};

export const variablesHelp = [
  '--var NAME=VALUE    set a variable (repeatable); wins over defaults and CPLANE_VAR_*',
  '--var-file FILE     read variables from a YAML file (repeatable); with --var, the last one given wins',
];

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []);

function parseAssignment(assignment: string): VariableArgument {
  const equals = assignment.indexOf('=');
  if (equals <= 0) throw new AbortError(`--var expects NAME=VALUE, got "${assignment}".`, 'Example: --var env=staging');
  return { name: assignment.slice(0, equals), value: assignment.slice(equals + 1) };
}

/**
 * Load options from the parsed --var / --var-file flags and the context's environment and folder.
 * The two flags are interleaved in command-line order (Terraform's rule: the last one wins);
 * without the order (a command run in-process by a test), var files come before --var.
 */
export function variablesLoadOptions(ctx: CommandContext): LoadOptions {
  const pending = { var: strings(ctx.values.var), 'var-file': strings(ctx.values['var-file']) };
  const order = ctx.optionOrder?.filter((name) => name === 'var' || name === 'var-file')
    ?? [...pending['var-file'].map(() => 'var-file'), ...pending.var.map(() => 'var')];
  const variables = order.map((name): VariableArgument => {
    const given = name === 'var' ? pending.var.shift()! : pending['var-file'].shift()!;
    return name === 'var' ? parseAssignment(given) : { file: given };
  });
  return { variables, env: ctx.env, cwd: ctx.cwd };
}
