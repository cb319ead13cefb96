/**
 * The abort that carries a configuration's diagnostics. AbortError itself lives on the ground floor (src/errors.ts),
 * the one path every folder imports it by.
 */
import type { Diagnostic } from '../config/types.js';
import { AbortError } from '../errors.js';

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
