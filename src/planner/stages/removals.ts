/**
 * The removals stage: addresses in state that leave the configuration (every
 * address, for `--destroy`). Only addresses in state are ever archived,
 * deleted or revoked. An object already gone is only forgotten; an object that
 * lives under a parent removed in the same plan goes with it (no write of its
 * own, it leaves state once the parent's removal succeeds); preventDestroy,
 * in the configuration or recorded in state, refuses the plan.
 */
import { parentOf, definitionOf } from '../../providers/index.js';
import type { ResourceState } from '../../state/types.js';
import { emptyStage, type PlannedInputs, type StageResult } from '../stage-inputs.js';
import { goneReason, isDeletedLive, liveChildrenOf, liveObjectOf, unreadableFor } from './live-account.js';
import { problemAt, rangeOf, whereOf } from '../problems.js';
import { supersededRevocations } from './reissue.js';
import { forgetStep, makeStep } from '../steps.js';

export interface Removals extends StageResult {
  /** Address -> the parent address it is removed with. */
  removedWith: Map<string, string>;
}

export function planRemovals(given: PlannedInputs): Removals {
  const out: Removals = { ...emptyStage(), removedWith: new Map() };
  const removed = new Set<string>();
  for (const address in given.state) if (given.mode === 'destroy' || !given.desiredByAddress.has(address)) removed.add(address);
  for (const address of removed) planRemoval(given, address, given.state[address]!, removed, out);
  return out;
}

function planRemoval(given: PlannedInputs, address: string, entry: ResourceState, removed: ReadonlySet<string>, out: Removals): void {
  const definition = definitionOf(entry.kind);
  const parent = parentOf(entry.kind);
  const parentId = parent ? entry.parents?.[parent.idField] : undefined;
  const blocked = unreadableFor(given.live, entry.kind, parentId);
  if (blocked) {
    out.unreadable.push({ ...blocked, address });
    return;
  }
  const found = liveObjectOf(given.live, entry);
  const deleted = isDeletedLive(given.live, entry, found);
  if (given.mode === 'refresh-only') {
    if (deleted) {
      const gone = goneReason(given.live, entry);
      out.drift.push({ address, kind: entry.kind, type: 'deleted', reason: gone, changes: [] });
      out.steps.push(
        makeStep({
          address,
          kind: entry.kind,
          action: 'no-op',
          reason: gone,
          changes: [],
          writes: [],
          forget: true,
          causes: ['deleted-outside'],
        }),
      );
    }
    return;
  }
  const r = given.desiredByAddress.get(address);
  const recorded = entry.inputs.lifecycle as { preventDestroy?: boolean; source?: string } | undefined;
  if (r?.lifecycle.preventDestroy || (!r && recorded?.preventDestroy)) {
    out.problems.push(
      problemAt(address, r ? r.source : rangeOf(recorded?.source), {
        code: 'prevent_destroy',
        summary: `lifecycle.preventDestroy is set, and this plan would ${definition.removeAction} it`,
        detail: `${r ? `Set at ${whereOf(r)}` : `Recorded in state from ${recorded?.source ?? 'the configuration'}`}; remove preventDestroy first if it really must go.`,
      }),
    );
  }
  if (deleted || found?.identity.status !== 'live') {
    if (deleted) out.drift.push({ address, kind: entry.kind, type: 'deleted', reason: goneReason(given.live, entry), changes: [] });
    const already = found?.identity.status === 'archived' ? 'already archived outside cplane' : `already ${goneReason(given.live, entry)}`;
    out.steps.push(forgetStep(address, entry.kind, definition.removeAction, `${already}: forgetting it`, 'configuration'));
    return;
  }
  const parentAddress = parent && parentId ? given.book.stateAddressOf(parent.kind, parentId) : undefined;
  if (parent && parentAddress && removed.has(parentAddress)) {
    out.steps.push(forgetStep(address, entry.kind, definition.removeAction, `${parent.removedWith} ${parentAddress}`, 'configuration'));
    out.removedWith.set(address, parentAddress);
    return;
  }
  const { writes, notes } = definition.planDelete({
    address,
    id: entry.id,
    parents: entry.parents,
    live: found.live,
    children: liveChildrenOf(given.live, entry.kind, entry.id),
  });
  // Old objects a renewal kept working go first, at once: nothing may outlive the address.
  const superseded = supersededRevocations(given.live, address, entry, given.known.nowForEnds, true);
  // Terraform's "because it is not in configuration"; with --destroy every address goes, and the mode says why.
  const reason = given.mode === 'destroy' ? undefined : 'not in configuration';
  const forget = definition.removeAction === 'forget' ? { forget: true } : {};
  out.steps.push(
    makeStep({
      address,
      kind: entry.kind,
      action: definition.removeAction,
      reason,
      changes: superseded.changes,
      writes: [...superseded.writes, ...writes],
      notes,
      ...forget,
      causes: ['configuration'],
    }),
  );
}
