/**
 * The two kinds of error a command can end with (after Shopify CLI): an abort,
 * where the user's input or environment is wrong and we say what to do next, and
 * anything else, which is a bug in cplane and is reported as one.
 */
import type { Diagnostic } from '../config/types.js';

export class AbortError extends Error {
  override readonly name = 'AbortError';
  constructor(
    message: string,
    /** What the user can do about it: printed on its own line after the message. */
    readonly hint?: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A configuration with errors: the abort carries the diagnostics, so `--github` can annotate each one. */
export class ConfigInvalidError extends AbortError {
  constructor(
    message: string,
    hint: string,
    readonly diagnostics: Diagnostic[],
  ) {
    super(message, hint);
  }
}
