/**
 * Why a plan cannot be made, as diagnostics (code, summary, detail, the
 * source range of the resource), printed by the same renderer as
 * configuration errors (config/diagnostics.ts). Codes are stable; tests
 * assert on them, never on the sentences.
 */
import type { Diagnostic, DesiredResource, SourceRange } from '../config/types.js';
import type { Problem } from '../providers/types.js';

/** A diagnostic about one address, with the address kept so that `--target` can leave out-of-scope ones aside. */
export interface PlanProblem extends Diagnostic {
  address?: string;
}

export function problemAt(address: string | undefined, range: SourceRange | undefined, problem: Problem): PlanProblem {
  return {
    severity: 'error',
    code: problem.code,
    summary: address ? `${address}: ${problem.summary}` : problem.summary,
    ...(problem.detail ? { detail: problem.detail } : {}),
    ...(range ? { range } : {}),
    ...(address ? { address } : {}),
  };
}

/** A problem of a desired resource, at its place in the configuration. */
export function resourceProblem(r: DesiredResource, problem: Problem): PlanProblem {
  return problemAt(
    r.address,
    problem.at ?? (problem.field !== undefined ? r.fieldRanges?.[problem.field] : undefined) ?? r.source,
    problem,
  );
}

/** `main.yaml:12` (as recorded in state) back to a range. */
export function rangeOf(recorded: string | undefined): SourceRange | undefined {
  const match = recorded?.match(/^(.*):(\d+)$/);
  return match ? { file: match[1] as string, line: Number(match[2]), col: 1 } : undefined;
}

/** Where a resource is, as recorded in state so that removing it later can still point at it. */
export const whereOf = (r: DesiredResource) => `${r.source.file}:${r.source.line}`;
