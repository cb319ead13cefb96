/**
 * How the `--var` and `--var-file` flags (declared in flags.ts) become
 * loadConfig options.
 */
import type { LoadOptions, VariableArgument } from '../config/index.js';
import type { CommandContext } from './command-context.js';
import { AbortError } from '../errors.js';

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
export function variablesLoadOptions(ctx: CommandContext): Omit<LoadOptions, 'kinds'> {
  const pending = { var: strings(ctx.values.var), 'var-file': strings(ctx.values['var-file']) };
  const order = ctx.optionOrder?.filter((name) => name === 'var' || name === 'var-file') ?? [
    ...pending['var-file'].map(() => 'var-file'),
    ...pending.var.map(() => 'var'),
  ];
  const variables = order.map((name): VariableArgument => {
    const given = name === 'var' ? pending.var.shift()! : pending['var-file'].shift()!;
    return name === 'var' ? parseAssignment(given) : { file: given };
  });
  const baseUrl = typeof ctx.values['base-url'] === 'string' && ctx.values['base-url'] !== '' ? ctx.values['base-url'] : undefined;
  return {
    variables,
    env: ctx.env,
    cwd: ctx.cwd,
    ...(baseUrl ? { baseUrl } : {}),
    ...(typeof ctx.values.state === 'string' && ctx.values.state !== '' ? { stateFlag: ctx.values.state } : {}),
    ...(ctx.deployment ? { deployment: ctx.deployment.name } : {}),
  };
}
