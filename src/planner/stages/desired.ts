/**
 * The desired stage: for each configured address, in dependency order, what
 * apply does. An address in state whose object was deleted outside cplane is
 * created again; an address without state whose natural key exists live is
 * adopted (import), never created twice; an address in state is compared
 * with its live object, and what changed outside cplane since the last apply
 * is reported as drift. Its address book (which id each address names once
 * the plan is applied) and the addresses that make a new one-time secret are
 * its outputs, beside the steps.
 */
import { routes } from '../../api/routes.js';
import type { DesiredResource, ResourceKind } from '../../config/types.js';
import { depthFirstOrder } from '../../graph/index.js';
import { resourceAddress, type FieldChange, type PlanStep, type StepCause } from '../../plan-model/index.js';
import { kindOrder, parentOf, definitionOf } from '../../providers/index.js';
import type { View } from '../../providers/types.js';
import { hasKeys, inPathOrder, isIgnored, sameValue } from '../../providers/view-diff.js';
import type { ResourceState } from '../../state/types.js';
import { planChange, type ChangeBase } from './change.js';
import { emptyStage, type AddressDecisions, type DesiredWork, type StageInputs, type StageResult } from '../stage-inputs.js';
import { AddressBook } from './address-book.js';
import { goneReason, isDeletedLive, liveByKey, liveObjectOf, unreadableFor, type LiveObject } from './live-account.js';
import { problemAt, resourceProblem } from '../problems.js';
import { endedAt, endedStep } from '../checks/ends.js';
import { expiredChange } from './reissue.js';
import { createChanges, inputsOf, makeStep, setPath } from '../steps.js';

export type DesiredOutcome = StageResult & AddressDecisions;

/**
 * `whenRead(kind)`: nothing when the live objects an address of `kind` is compared with are read (`given.live` has
 * them), or a promise that resolves once they are. make-plan.ts plans a kind read in full while other reads are in flight.
 */
export async function planDesired(
  given: StageInputs,
  whenRead: (kind: ResourceKind) => Promise<void> | undefined = () => undefined,
): Promise<DesiredOutcome> {
  const book = new AddressBook(given.state, given.objectsInState);
  const work: DesiredWork = { ...given, book, known: book.known(given.facts), sealing: new Set() };
  const out = emptyStage();
  if (given.mode !== 'destroy')
    for (const r of given.desiredInOrder) {
      const reading = whenRead(r.kind);
      if (reading) await reading;
      planAddress(work, r, out);
    }
  return { ...out, book, known: work.known, sealing: work.sealing };
}

function planAddress(given: DesiredWork, r: DesiredResource, out: StageResult): void {
  const entry = given.state[r.address];
  const blocked = unreadableFor(given.live, r.kind, parentIdOf(given, r, entry));
  if (blocked) {
    out.unreadable.push({ ...blocked, address: r.address });
    return;
  }
  // Configured to end, and ended by either clock (a grant's `until`): removed, never created or adopted again.
  const ended = given.mode === 'refresh-only' ? undefined : endedAt(r, given.known.nowForEnds);
  if (ended) {
    const step = endedStep(given, r, ended);
    if (step) out.steps.push(step);
    return;
  }
  const found = entry && liveObjectOf(given.live, entry);
  if (entry && isDeletedLive(given.live, entry, found)) return planDeletedOutside(given, r, entry, out);
  if (!entry) return planNotInState(given, r, out);
  // In state and live (possibly archived).
  if (found) planInState(given, r, entry, found, out);
}

function pushStep(given: DesiredWork, out: StageResult, step: PlanStep): void {
  out.steps.push(step);
  if (step.writes.some((w) => w.effects.seal)) given.sealing.add(step.address);
}

function createStep(given: DesiredWork, r: DesiredResource, out: StageResult, cause: StepCause, reason?: string): void {
  const { known } = given;
  const definition = definitionOf(r.kind);
  given.book.markPending(r.address, r.kind);
  const created = definition.planCreate({ desired: r, known });
  out.problems.push(...(created.problems ?? []).map((p) => resourceProblem(r, p)));
  pushStep(
    given,
    out,
    makeStep(
      {
        address: r.address,
        kind: r.kind,
        action: 'create',
        reason,
        changes: createChanges(definition, r, known),
        writes: created.writes,
        inputs: { ...inputsOf(r), ...created.inputs },
        notes: created.notes,
        causes: [cause],
      },
      r.secrets,
    ),
  );
}

function changeStep(
  given: DesiredWork,
  r: DesiredResource,
  out: StageResult,
  found: LiveObject,
  state: ResourceState | undefined,
  base: ChangeBase,
): void {
  const { step, problems } = planChange(given, r, found, state, base);
  out.problems.push(...problems);
  if (step) pushStep(given, out, step);
}

/** In state, but its object was deleted outside cplane: drift, and created again (refresh-only: forgotten). */
function planDeletedOutside(given: DesiredWork, r: DesiredResource, entry: ResourceState, out: StageResult): void {
  const gone = goneReason(given.live, entry);
  out.drift.push({ address: r.address, kind: r.kind, type: 'deleted', reason: gone, changes: [] });
  if (given.mode !== 'refresh-only') return createStep(given, r, out, 'deleted-outside', gone);
  out.steps.push(
    makeStep({
      address: r.address,
      kind: r.kind,
      action: 'no-op',
      reason: gone,
      changes: [],
      writes: [],
      forget: true,
      causes: ['deleted-outside'],
    }),
  );
}

/** Not in state: imported by an `import` block, adopted by its natural key, or created. */
function planNotInState(given: DesiredWork, r: DesiredResource, out: StageResult): void {
  if (given.mode === 'refresh-only') return;
  const { known, book } = given;
  const definition = definitionOf(r.kind);
  const imported = given.imports.get(r.address);
  if (imported) return planImport(given, r, imported.id, out);
  if (given.live.snapshot.byIdOnly.has(r.kind) && definition.observation !== 'state') {
    const op = definition.refreshOperations[0] ?? definition.readOperation;
    out.unreadable.push({
      address: r.address,
      kind: r.kind,
      operation: op,
      reason: `not in state, and finding an existing one needs ${routes[op].method} ${routes[op].path}, a human-only operation`,
    });
    return;
  }
  const candidate = liveByKey(given.live, r.kind, definition.naturalKey({ desired: r, known }));
  // One live object is managed by one address: an object already in state, or adopted above, is not adopted twice.
  if (!candidate || book.isManaged(r.kind, candidate.identity.id)) return createStep(given, r, out, 'configuration');
  book.adopt(r.address, r.kind, candidate.identity.id);
  const adopt = { id: candidate.identity.id, ...(candidate.identity.parents ? { parents: candidate.identity.parents } : {}) };
  changeStep(given, r, out, candidate, undefined, { action: 'import', reason: 'created outside cplane: adopting it', adopt });
}

/** In state and live: drift reported, then the change (refresh-only: the live values recorded). */
function planInState(given: DesiredWork, r: DesiredResource, entry: ResourceState, found: LiveObject, out: StageResult): void {
  const { mode, known } = given;
  const definition = definitionOf(r.kind);
  const observed = definition.view({ live: found.live, known });
  const changes = driftOf(given, entry, observed, r.lifecycle.ignoreChanges);
  if (found.identity.status === 'archived') changes.unshift({ path: 'archived', before: false, after: true });
  if (changes.length > 0) out.drift.push({ address: r.address, kind: r.kind, type: 'changed', changes });
  // Expiry is drift too (never "No changes"): planChange replaces the object. A drift check lists it as due
  // instead (checks/due.ts): time ended it, nobody changed it outside cplane.
  const expired = mode === 'refresh-only' ? undefined : expiredChange(found.identity, known.nowForEnds);
  if (expired) out.drift.push({ address: r.address, kind: r.kind, type: 'changed', reason: expired.note, changes: [expired] });
  if (mode === 'refresh-only') {
    if (changes.length === 0) return;
    const inputs = changes.filter((c) => c.path !== 'archived').reduce((acc, c) => setPath(acc, c.path, c.after), entry.inputs);
    out.steps.push(
      makeStep({
        address: r.address,
        kind: r.kind,
        action: 'no-op',
        reason: 'changed outside cplane: recording the live values',
        changes,
        writes: [],
        inputs,
        causes: ['changed-outside'],
      }),
    );
    return;
  }
  // Every repair of drift says why, so a reviewer reading only the step (Markdown's Why column) knows.
  const repair =
    found.identity.status === 'archived'
      ? 'archived outside cplane: unarchiving it'
      : changes.length > 0
        ? `changed outside cplane (${changes.map((c) => c.path).join(', ')}): setting it back`
        : undefined;
  changeStep(given, r, out, found, entry, {
    action: 'update',
    reason: repair,
    observed,
    ...(changes.length > 0
      ? { changedOutside: changedOutsideOnly(definition.desiredView({ attributes: r.attributes, known }), changes) }
      : {}),
  });
}

/**
 * The paths live differs at from what cplane last applied while the configuration still asks for what was
 * applied: putting them back is drift. A path the configuration changed too is a change of the configuration.
 */
function changedOutsideOnly(wanted: View, drifted: readonly FieldChange[]): Set<string> {
  return new Set(drifted.filter((c) => c.path === 'archived' || sameValue(wanted[c.path], c.before)).map((c) => c.path));
}

/** An `import` block: the address adopts the live object with that id, or the plan says why it cannot. */
function planImport(given: DesiredWork, r: DesiredResource, id: string, out: StageResult): void {
  const found = given.live.kinds.get(r.kind)?.byId.get(id);
  const where = given.imports.get(r.address)!.source;
  if (!found || found.identity.status === 'gone') {
    out.problems.push(
      problemAt(r.address, where, {
        code: 'import_not_found',
        summary: `import: no ${r.kind} with id ${id} exists in the account`,
        detail: `Check the id (the API and the console show it); for an object that lives under another, its parent must be in the configuration.`,
      }),
    );
    return;
  }
  const owner = given.book.stateAddressOf(r.kind, id);
  if (owner !== undefined) {
    out.problems.push(
      problemAt(r.address, where, {
        code: 'import_already_managed',
        summary: `import: the ${r.kind} ${id} is already managed as ${owner}`,
        detail: `One object is managed by one address: use a moved block from ${owner} instead.`,
      }),
    );
    return;
  }
  given.book.adopt(r.address, r.kind, id);
  const adopt = { id, ...(found.identity.parents ? { parents: found.identity.parents } : {}) };
  changeStep(given, r, out, found, undefined, { action: 'import', reason: `import block at ${where.file}:${where.line}`, adopt });
}

/** For a kind that lives under a parent: the parent's id, from state or from the address book. */
function parentIdOf(given: StageInputs, r: DesiredResource, entry: ResourceState | undefined): string | undefined {
  const parent = parentOf(r.kind);
  if (!parent) return undefined;
  const local = (r.attributes as unknown as Record<string, unknown>)[parent.attribute];
  return (
    entry?.parents?.[parent.idField] ?? (typeof local === 'string' ? given.known.idOf(resourceAddress(parent.kind, local)) : undefined)
  );
}

/** Live values (the live object's view, `observed`) that differ from what cplane last applied, field by field. */
function driftOf(given: StageInputs, entry: ResourceState, observed: View, ignore: string[]): FieldChange[] {
  // An object adopted by a run that stopped before its first write has no inputs yet: nothing to compare.
  if (!hasKeys(entry.inputs)) return [];
  const definition = definitionOf(entry.kind);
  const applied: View = definition.desiredView({ attributes: entry.inputs, known: given.known });
  const changes: FieldChange[] = [];
  for (const path in applied) {
    if (!(path in observed) || applied[path] === undefined || isIgnored(path, ignore)) continue;
    if (!sameValue(applied[path], observed[path])) changes.push({ path, before: applied[path] ?? null, after: observed[path] ?? null });
  }
  return inPathOrder(changes);
}

/**
 * Desired resources with every resource after the ones it depends on (kinds in dependency order first).
 * `byAddress` is the same resources by address, when the caller has it.
 */
export function orderDesired(
  resources: readonly DesiredResource[],
  byAddress: ReadonlyMap<string, DesiredResource> = new Map(resources.map((r) => [r.address, r])),
): DesiredResource[] {
  // Kind by kind, each in address order: the roots of the walk.
  const ofKind = new Map<string, DesiredResource[]>(kindOrder.map((kind) => [kind, []]));
  for (const r of resources) ofKind.get(r.kind)!.push(r);
  const roots: string[] = [];
  for (const list of ofKind.values()) for (const r of list.sort(inAddressOrder)) roots.push(r.address);
  const needs = { get: (address: string) => byAddress.get(address)?.dependsOn, has: (address: string) => byAddress.has(address) };
  return depthFirstOrder(needs, roots).map((address) => byAddress.get(address)!);
}

const inAddressOrder = (a: DesiredResource, b: DesiredResource) => (a.address < b.address ? -1 : 1);
