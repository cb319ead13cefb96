/**
 * What a test run's assertions see (docs/testing.md, "What an assertion sees"): the plan it made in the
 * terms of `plan --json` (its summary, its steps by address, its policy findings, the drift) and, for an
 * apply, what the apply did. Only what a plan already holds: no write-only value is ever in it. Numbers are
 * CEL ints and doubles as policies see them (policy/'s celValue).
 */
import { celValue } from '../policy/index.js';
import { hasChanges, isIncomplete, legacyNoticeFields, type Plan } from '../plan-model/index.js';

/** The variables an assertion may name; any other name is a type error when the file is read. */
export const FACT_NAMES = ['plan', 'steps', 'policies', 'drift', 'apply'] as const;

/** What an apply run did: absent for a plan run. */
export interface ApplyOutcome {
  /** A mandatory policy finding stopped the apply before any write. */
  refused: boolean;
  done: number;
  /** Steps that failed; in a refused apply, every step it would have applied. */
  failed: number;
  skipped: number;
  /** One line per failed step: `ADDRESS: reason`. */
  errors: string[];
}

export function planFacts(plan: Plan, apply: ApplyOutcome | undefined): Record<string, unknown> {
  const findings = (plan.policies?.findings ?? []).map(({ at: _at, ...finding }) => finding);
  const steps = Object.fromEntries(
    plan.steps.map((step) => [
      step.address,
      {
        address: step.address,
        kind: step.kind,
        action: step.action,
        reason: step.reason ?? '',
        // By attribute path; a write-only value's change has only `sensitive: true`.
        changes: Object.fromEntries(
          step.changes.map((c) => [
            c.path,
            {
              ...('before' in c ? { before: c.before } : {}),
              ...('after' in c ? { after: c.after } : {}),
              sensitive: c.sensitive === true,
            },
          ]),
        ),
        dependsOn: step.dependsOn,
        notes: step.notes ?? [],
      },
    ]),
  );
  return celValue({
    plan: {
      ...plan.summary,
      mode: plan.mode,
      account: plan.account,
      changes: hasChanges(plan),
      incomplete: isIncomplete(plan),
      addresses: plan.steps.map((s) => s.address),
      unreadable: plan.unreadable.map((u) => u.address ?? u.kind),
      notices: plan.notices ?? [],
      // The fields of plan format 3 that test files may still read (`plan.withoutValue`).
      withoutValue: [],
      ...legacyNoticeFields(plan.notices),
    },
    steps,
    policies: {
      policies: plan.policies?.policies ?? 0,
      checked: plan.policies?.checked ?? 0,
      findings,
      // An error counts as a violation of its level (docs/policies.md): every finding is one.
      violations: findings,
      mandatory: findings.filter((f) => f.level === 'mandatory'),
      advisory: findings.filter((f) => f.level === 'advisory'),
    },
    drift: plan.drift.map((d) => ({ address: d.address, kind: d.kind, type: d.type })),
    apply: apply ?? null,
  }) as Record<string, unknown>;
}
