/**
 * The one table of exit codes (README, "Exit codes"). Every command returns
 * one of these; tests assert on them by name.
 */
import { blockingFindings, hasChanges, isIncomplete, type Plan } from '../plan-model/index.js';

export const exitCodes = {
  /** Done; for `plan --detailed-exitcode`: a complete plan with no changes. */
  ok: 0,
  /** An error: bad input or environment, a refused or failed request, a plan that cannot be made. */
  error: 1,
  /** `plan --detailed-exitcode`: a complete plan with changes; `cplane drift`: drift was found. */
  changes: 2,
  /** `plan --detailed-exitcode`: an incomplete plan (something could not be read), with or without changes. */
  incomplete: 3,
  /** `cplane access report`: a reader is flagged (unmanaged, may hold a version, inactive, unused, ending). */
  flagged: 2,
  /** `cplane fmt --check`: some files are not in canonical form (Terraform's `fmt -check` exits 3 too). */
  unformatted: 3,
  /** Interrupted (Ctrl-C / SIGINT). */
  interrupted: 130,
} as const;

/** What a plan made amounts to, as `plan --detailed-exitcode` says it (without that flag, only `error` stays). */
export function planExitCode(plan: Plan, detailed: boolean): number {
  // A mandatory policy finding fails the plan, whatever else it says (docs/policies.md).
  if (blockingFindings(plan).length > 0) return exitCodes.error;
  if (!detailed) return exitCodes.ok;
  return isIncomplete(plan) ? exitCodes.incomplete : hasChanges(plan) ? exitCodes.changes : exitCodes.ok;
}

/**
 * The exit code of a run for several deployments (`plan --all`, every command's `--all`): an error anywhere is the run's
 * error; then an incomplete result; then changes (drift, a flagged reader).
 */
export function combinedExitCode(codes: readonly number[]): number {
  if (codes.some((c) => c !== exitCodes.ok && c !== exitCodes.changes && c !== exitCodes.incomplete)) return exitCodes.error;
  if (codes.includes(exitCodes.incomplete)) return exitCodes.incomplete;
  return codes.includes(exitCodes.changes) ? exitCodes.changes : exitCodes.ok;
}
