import { AbortError } from '../errors.js';

/** `--target` and `--exclude` are opposites (OpenTofu refuses them together too): a run uses one or the other. */
export function refuseTargetWithExclude(targets: readonly string[], exclude: readonly string[]): void {
  if (targets.length > 0 && exclude.length > 0) {
    throw new AbortError(
      '--target and --exclude cannot be used together.',
      'A run either plans only the targeted addresses or all but the excluded ones: give one of the two flags.',
    );
  }
}
