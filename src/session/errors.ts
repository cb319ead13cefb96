/**
 * The errors commands throw. AbortError lives on the ground floor (src/errors.ts); this module re-exports it
 * to keep the commands' imports short, and adds the abort that carries a configuration's diagnostics.
 */
import type { Diagnostic } from '../config/types.js';
import { AbortError } from '../errors.js';

export { AbortError, BugError } from '../errors.js';

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
