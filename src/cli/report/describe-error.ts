/**
 * Turns anything a command threw into the text the user sees and an exit code.
 * Known errors say what to do next; unknown ones are reported as bugs, with the
 * stack only when CPLANE_DEBUG is set.
 */
import type { Command } from '../command.js';
import { AbortError, classifyError } from '../../errors.js';
import { safeLines } from '../../text/safe-text.js';

/** The message, with every secret of the run redacted and control characters escaped (line breaks kept). */
export function describeError(error: unknown, command: Pick<Command, 'name'>): { message: string; exitCode: number } {
  const { message, exitCode } = composeError(error, command);
  return { message: safeLines(message), exitCode };
}

function composeError(error: unknown, command: Pick<Command, 'name'>): { message: string; exitCode: number } {
  if (error instanceof AbortError) {
    return { message: `Error: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`, exitCode: error.exitCode };
  }
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS')) {
    return { message: `Error: ${error.message}\nRun \`cplane ${command.name.join(' ')} --help\` for the options.\n`, exitCode: 1 };
  }
  // The API layer's errors already say what failed and what to do (src/api/errors.ts).
  if (error instanceof Error && classifyError(error) !== 'bug') {
    return { message: `Error: ${error.message}\n`, exitCode: 1 };
  }
  const detail = error instanceof Error ? (process.env.CPLANE_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
  return {
    message: `Error: cplane hit an unexpected problem (a bug): ${detail}\nPlease report it; set CPLANE_DEBUG=1 to include the stack trace.\n`,
    exitCode: 1,
  };
}
