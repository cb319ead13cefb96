/**
 * Turning a decision into a plan step: writes get their ids and
 * Idempotency-Keys, the step lists the sources of the write-only values its
 * writes use (references, never values), and the inputs recorded in state.
 */
import { randomUUID } from 'node:crypto';
import type { DesiredResource, ResourceKind, SecretSource } from '../config/types.js';
import { eachPlaceholder, writeOnlyField, type FieldChange, type PlanStep, type StepCause, type Template } from '../plan-model/index.js';
import type { Known, KindDefinition, WriteSpec } from '../providers/types.js';
import { whereOf } from './problems.js';
import { classOf } from './step-class.js';

/** A step before the planner gives it its dependencies, class and finished writes; every draft says why it exists. */
export type StepDraft = Omit<PlanStep, 'dependsOn' | 'writes' | 'causes' | 'class'> & { writes: WriteSpec[]; causes: StepCause[] };

export function makeStep(draft: StepDraft, secrets?: Record<string, SecretSource>): PlanStep {
  const writes = draft.writes.map((w, i) => ({ ...w, id: `${draft.address}#${i}`, idempotencyKey: randomUUID() }));
  const used = new Set<string>();
  for (const write of writes) secretFields(write.body, used);
  const causes = [...new Set(draft.causes)];
  const step: PlanStep = { ...draft, dependsOn: [], writes, causes, class: classOf(causes) };
  if (secrets && used.size > 0)
    step.secrets = Object.fromEntries([...used].filter((f) => secrets[f]).map((f) => [f, secrets[f] as SecretSource]));
  if (draft.forget || writes.some((w) => w.effects.forget)) step.forget = true;
  if (!step.notes?.length) delete step.notes;
  if (!step.reason) delete step.reason;
  return step;
}

/** A step that only takes the address out of state (its object is already gone). */
export function forgetStep(address: string, kind: ResourceKind, action: PlanStep['action'], reason: string, cause: StepCause): PlanStep {
  return makeStep({ address, kind, action, reason, changes: [], writes: [], forget: true, causes: [cause] });
}

/** The write-only fields whose plaintext a template's placeholders take. */
function secretFields(template: Template | undefined, into: Set<string>): Set<string> {
  eachPlaceholder(template, '', (placeholder) => {
    const field = placeholder.tag === 'malformed' ? undefined : writeOnlyField(placeholder);
    if (field !== undefined) into.add(field);
  });
  return into;
}

/** The non-secret inputs recorded in state when the step completes. */
export function inputsOf(r: DesiredResource): Record<string, unknown> {
  const inputs = structuredClone(r.attributes) as unknown as Record<string, unknown>;
  // Kept so that removing the resource from the configuration later is still refused.
  if (r.lifecycle.preventDestroy) inputs.lifecycle = { preventDestroy: true, source: whereOf(r) };
  return inputs;
}

/** The attributes a create sets, as changes without a `before`; write-only ones as `(sensitive)`. */
export function createChanges(definition: KindDefinition, r: DesiredResource, known: Known): FieldChange[] {
  const changes: FieldChange[] = Object.entries(definition.desiredView({ attributes: r.attributes, known }))
    .filter(([, value]) => value !== undefined)
    .map(([path, after]) => ({ path, after }));
  for (const field of Object.keys(r.secrets).sort()) changes.push({ path: field, sensitive: true });
  return changes;
}

/** Sets `a.b.c` in a nested object (copying along the way). */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  const key = head as string;
  if (rest.length === 0) return { ...target, [key]: value };
  const child = target[key];
  return { ...target, [key]: setPath(child && typeof child === 'object' ? (child as Record<string, unknown>) : {}, rest.join('.'), value) };
}
