/**
 * How the `--var` and `--var-file` flags (declared in flags.ts) become
 * loadConfig options.
 */
import type { LoadOptions } from '../config/index.js';
import type { CommandContext } from './command.js';
import { AbortError } from './errors.js';

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []);

/** Load options from the parsed --var / --var-file flags and the context's environment and folder. */
export function variablesLoadOptions(ctx: CommandContext): LoadOptions {
  const vars: Record<string, string> = {};
  for (const assignment of strings(ctx.values.var)) {
    const equals = assignment.indexOf('=');
    if (equals <= 0) throw new AbortError(`--var expects NAME=VALUE, got "${assignment}".`, 'Example: --var env=staging');
    vars[assignment.slice(0, equals)] = assignment.slice(equals + 1);
  }
  return { vars, varFiles: strings(ctx.values['var-file']), env: ctx.env, cwd: ctx.cwd };
}
