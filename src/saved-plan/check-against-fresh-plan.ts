/**
 * Why a saved plan is not trusted as it is read: a plan file crosses a trust
 * boundary (an artifact, a download, anyone's edit). Apply therefore makes a
 * fresh plan from the current configuration and live objects and executes
 * that, after checking that the saved steps equal it (Idempotency-Keys aside,
 * which the saved plan lends to the fresh one so one plan applied twice writes
 * once). Placeholders are checked before anything else, so an altered plan is
 * refused before a single request is sent.
 */
import { canonicalJson } from '../config/index.js';
import { definitionOf } from '../providers/index.js';
import { AbortError } from '../errors.js';
import { eachPlaceholder, writeOnlyField, type Plan, type PlanStep, type Template } from '../plan-model/index.js';
import { summarize } from '../planner/stages/summary.js';
import { REPLAN, type SavedPlan } from './read.js';

const isWriteOnly = (step: PlanStep, field: string): boolean =>
  (definitionOf(step.kind).writeOnly ?? []).some((pattern) =>
    pattern.endsWith('.*') ? field.startsWith(pattern.slice(0, -1)) && field.length > pattern.length - 1 : field === pattern,
  );

/** Each placeholder of a template that takes a secret (or is malformed), with where it is (`body.description`). */
function placeholders(template: Template | undefined, at: string, into: { at: string; field: unknown }[]): void {
  eachPlaceholder(template, at, (placeholder, where) => {
    if (placeholder.tag === 'malformed') {
      if (placeholder.key !== '$ref') into.push({ at: where, field: placeholder.value });
    } else if (writeOnlyField(placeholder) !== undefined) into.push({ at: where, field: writeOnlyField(placeholder) });
  });
}

/**
 * Placeholders and secret sources that no plan made by cplane contains: a placeholder in a field the
 * kind's definition does not declare write-only, one without a source, or a source no placeholder uses.
 */
export function placeholderProblems(plan: Plan): string[] {
  const problems: string[] = [];
  for (const step of plan.steps) {
    const used = new Set<string>();
    for (const write of step.writes) {
      const found: { at: string; field: unknown }[] = [];
      placeholders(write.path, 'path', found);
      placeholders(write.body, 'body', found);
      for (const { at, field } of found) {
        const name = typeof field === 'string' ? field : JSON.stringify(field);
        if (typeof field !== 'string' || !isWriteOnly(step, field))
          problems.push(`${step.address}: ${write.id} ${at} takes a secret ("${name}"), but ${step.kind} has no such write-only field`);
        else if (!step.secrets?.[field])
          problems.push(`${step.address}: ${write.id} ${at} takes the secret "${field}", which has no source`);
        else used.add(field);
      }
    }
    for (const field of Object.keys(step.secrets ?? {})) {
      if (!isWriteOnly(step, field)) problems.push(`${step.address}: secrets.${field} is not a write-only field of ${step.kind}`);
      else if (!used.has(field)) problems.push(`${step.address}: secrets.${field} is used by no write`);
    }
  }
  return problems;
}

/** A step without what may differ between two plans of the same change (Idempotency-Keys). */
function comparable(step: PlanStep): unknown {
  // Words for people move with the clock (`it expired 2 days ago`, `rotate: due 3 days ago`) and decide no write;
  // the steps applied, and shown for approval, are the fresh plan's, so they are not compared.
  const { reason: _reason, ...rest } = step;
  const changes = step.changes.map(({ note: _note, ...change }) => change);
  return { ...rest, changes, writes: step.writes.map(({ idempotencyKey: _key, ...write }) => write) };
}

/** The first place two JSON values differ, as a path (`writes[0].body.description`), or undefined when equal. */
export function firstDifference(a: unknown, b: unknown, at = ''): string | undefined {
  if (canonicalJson(a) === canonicalJson(b)) return undefined;
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects =
    !bothArrays && a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
  if (bothArrays) {
    if (a.length !== b.length) return `${at || '.'} (${a.length} item(s) saved, ${b.length} now)`;
    for (let i = 0; i < a.length; i++) {
      const inner = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (inner) return inner;
    }
  }
  if (bothObjects) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const inner = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], at ? `${at}.${key}` : key);
      if (inner) return inner;
    }
  }
  return at || '.';
}

/**
 * How the saved steps differ from a fresh plan's at the saved plan's addresses, one line per address; empty
 * when a plan made now has exactly the saved steps there. Idempotency-Keys are left out: each plan makes its
 * own. What a plan made now would do elsewhere is not the saved plan's (outsideSavedPlan).
 */
export function stepDifferences(saved: Plan, fresh: Plan): string[] {
  const freshByAddress = new Map(fresh.steps.map((s) => [s.address, s]));
  const lines: string[] = [];
  for (const step of saved.steps) {
    const now = freshByAddress.get(step.address);
    if (!now) {
      lines.push(`${step.address}: the saved plan would ${step.action} it; a plan made now would not`);
      continue;
    }
    const where = firstDifference(comparable(step), comparable(now));
    if (where) lines.push(`${step.address}: differs at ${where}`);
  }
  return lines;
}

/**
 * The steps of a plan made now at addresses the saved plan does not change: another pull request's change
 * merged and not applied yet, or a change made outside cplane. Applying a saved plan never writes them: it
 * applies what was reviewed, and each is left for a plan of its own (or the next `cplane plan`).
 */
export function outsideSavedPlan(saved: Plan, fresh: Plan): PlanStep[] {
  const own = new Set(saved.steps.map((s) => s.address));
  return fresh.steps.filter((s) => !own.has(s.address));
}

/**
 * The saved plan as it reads once its pending writes were resent: a `$ref` to an address that a pending
 * write was creating names that object's id, known now (`idNow`), as a plan made now writes it.
 */
export function withPendingResolved(saved: Plan, idNow: (address: string) => string | undefined): Plan {
  const pending = new Set((saved.pendingWrites ?? []).map((w) => w.address));
  if (pending.size === 0) return saved;
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && typeof record.$ref === 'string' && pending.has(record.$ref)) return idNow(record.$ref) ?? record;
    return Object.fromEntries(keys.map((key) => [key, resolve(record[key])]));
  };
  return { ...saved, steps: saved.steps.map((step) => ({ ...step, writes: step.writes.map((w) => resolve(w) as typeof w) })) };
}

/** The fresh plan's steps with the saved plan's Idempotency-Keys, so that applying one saved plan twice sends each write once. */
export function withSavedKeys(fresh: Plan, saved: Plan): Plan {
  const keys = new Map(saved.steps.flatMap((s) => s.writes.map((w) => [w.id, w.idempotencyKey] as const)));
  return {
    ...fresh,
    steps: fresh.steps.map((step) => ({
      ...step,
      writes: step.writes.map((w) => ({ ...w, idempotencyKey: keys.get(w.id) ?? w.idempotencyKey })),
    })),
  };
}

/**
 * How the saved plan's policy report differs from a fresh plan's: made under other policies (the digest),
 * or with other findings. Empty when they agree; a plan reviewed under one set of rules is never applied
 * under another.
 */
export function policyDifferences(saved: Plan, fresh: Plan): string[] {
  const digest = (plan: Plan) => plan.policies?.digest ?? 'none';
  if (digest(saved) !== digest(fresh)) {
    return [
      `the policies changed since the plan was made (${saved.policies ? `${saved.policies.policies} then` : 'none then'}, ${fresh.policies ? `${fresh.policies.policies} now` : 'none now'})`,
    ];
  }
  // Where a resource is shown depends on the folder each command ran in: only what the findings say is compared,
  // and not on the addresses only a plan made now changes (another pull request's change, judged by its own plan).
  const elsewhere = new Set(outsideSavedPlan(saved, fresh).map((s) => s.address));
  const said = (plan: Plan) =>
    (plan.policies?.findings ?? []).filter((f) => !elsewhere.has(f.address)).map(({ at: _at, ...finding }) => finding);
  const where = firstDifference(said(saved), said(fresh));
  return where ? [`the policy findings differ from a plan made now (at findings${where.startsWith('.') ? where.slice(1) : where})`] : [];
}

/** Why an address of the saved plan may differ now: its state entry was written after the plan was made (another apply). */
function writtenSince(saved: Plan, updatedAt: (address: string) => string | undefined): (line: string) => string {
  return (line) => {
    const address = line.slice(0, line.indexOf(': '));
    const at = updatedAt(address);
    return at !== undefined && at > saved.createdAt ? `${line} (applied by another run at ${at}, after this plan was made)` : line;
  };
}

/**
 * The plan to execute for a saved plan: the fresh steps at the saved plan's addresses, with the saved
 * Idempotency-Keys, when they are exactly the saved steps; otherwise the saved plan is refused, naming each
 * address that differs. A plan is stale only where it is wrong: steps a plan made now has elsewhere (another
 * pull request merged meanwhile, in a merge commit the plan never saw) are not applied, and the configuration
 * files may have changed as long as they still want exactly the saved steps.
 */
export function trustedPlan(
  saved: SavedPlan,
  fresh: Plan,
  planPath: string,
  resent: {
    count: number;
    idNow: (address: string) => string | undefined;
    /** When each address's state entry was last written (the refusal says which were applied after the plan was made). */
    updatedAt?: (address: string) => string | undefined;
    /** The configuration files changed since the plan was made (prepare-apply.ts), named in a refusal. */
    changedFiles?: string[];
  },
): Plan {
  const policies = policyDifferences(saved, fresh);
  if (policies.length > 0) {
    const done =
      resent.count > 0
        ? `${resent.count} pending write(s) an earlier run left were resent first; none of the saved plan's steps was applied`
        : 'Nothing was applied';
    throw new AbortError(`The saved plan ${planPath} was checked under other policies: ${policies.join('; ')}. ${done}.`, REPLAN);
  }
  const differences = stepDifferences(withPendingResolved(saved, resent.idNow), fresh).map(
    writtenSince(saved, resent.updatedAt ?? (() => undefined)),
  );
  if (differences.length > 0) {
    const shown = differences.slice(0, 20);
    // Pending writes are resent before the saved plan is checked: say so, rather than claim nothing happened.
    const done =
      resent.count > 0
        ? `${resent.count} pending write(s) an earlier run left were resent first; none of the saved plan's steps was applied`
        : 'Nothing was applied';
    throw new AbortError(
      `The saved plan ${planPath} is stale or was altered at ${differences.length === 1 ? '1 address' : `${differences.length} addresses`}: a plan made now from the configuration and the live objects has other steps there (changed since the plan was made, by another apply or outside cplane, or the configuration now wants something else${resent.changedFiles?.length ? `; changed files: ${resent.changedFiles.join(', ')}` : ''}). ${done}:\n${shown.map((d) => `  - ${d}`).join('\n')}${differences.length > shown.length ? `\n  - and ${differences.length - shown.length} more` : ''}`,
      REPLAN,
    );
  }
  const { auth: _auth, ...plan } = withSavedKeys(fresh, saved);
  const own = new Set(saved.steps.map((s) => s.address));
  const steps = plan.steps.filter((s) => own.has(s.address));
  return { ...plan, steps, summary: summarize(steps), origin: saved.origin };
}
