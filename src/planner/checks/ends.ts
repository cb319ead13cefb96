/**
 * Objects configured to end (a grant's `until`, `endsAt` of its kind): once either clock passes the end (the API's
 * or this machine's: `Known.nowForEnds`, clocks.ts), every plan removes the object and never creates it again, though
 * it stays in the configuration; a live object of an ended address that state does not hold is left to its parent
 * (a record revokes a grant it does not list).
 * Ends within 7 days are listed in the plan with the time left, so a reviewer sees them coming.
 */
import type { DesiredResource } from '../../config/types.js';
import type { EndingGrant, PlanStep } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { StageInputs } from '../stage-inputs.js';
import { isDeletedLive, liveChildrenOf, liveObjectOf } from '../stages/live-account.js';
import { relativeTime, utcMinute } from '../stages/reissue.js';
import { forgetStep, makeStep } from '../steps.js';

const SOON_MS = 7 * 86_400_000;

/** When `r` has ended by `now` (the clock for ends): its end, else undefined. */
export function endedAt(r: DesiredResource, now: Date): { at: string; reason?: string } | undefined {
  const ends = definitionOf(r.kind).endsAt?.({ attributes: r.attributes as never });
  return ends && Date.parse(ends.at) <= now.getTime() ? ends : undefined;
}

/** Why an ended address goes: `it ended 1 hour ago (until 2026-12-01 18:00 UTC, INC-123)`. */
export function endedWords(ends: { at: string; reason?: string }, now: Date): string {
  return `it ended ${relativeTime(Date.parse(ends.at) - now.getTime())} (until ${utcMinute(new Date(ends.at))}${ends.reason ? `, ${ends.reason}` : ''})`;
}

/** The step that removes an ended address (none when state does not hold it). */
export function endedStep(given: StageInputs, r: DesiredResource, ends: { at: string; reason?: string }): PlanStep | undefined {
  const entry = given.state[r.address];
  if (!entry) return undefined;
  const ended = endedWords(ends, given.known.nowForEnds);
  const found = liveObjectOf(given.live, entry);
  if (!found || isDeletedLive(given.live, entry))
    return forgetStep(r.address, r.kind, 'forget', `${ended}, and it is gone already`, 'grant-expired');
  const definition = definitionOf(r.kind);
  const removed = definition.planDelete({
    address: r.address,
    id: entry.id,
    parents: entry.parents,
    live: found.live,
    children: liveChildrenOf(given.live, r.kind, entry.id),
  });
  const changes = [
    { path: 'until', before: ends.at, note: `ended ${relativeTime(Date.parse(ends.at) - given.known.nowForEnds.getTime())}` },
  ];
  return makeStep({
    address: r.address,
    kind: r.kind,
    action: definition.removeAction,
    reason: ended,
    changes,
    writes: removed.writes,
    notes: removed.notes,
    causes: ['grant-expired'],
  });
}

/** Configured ends within 7 days of `now` (the clock for ends), not yet passed, in address order. */
export function endingSoon(resources: readonly DesiredResource[], now: Date): EndingGrant[] {
  const out: EndingGrant[] = [];
  for (const r of resources) {
    const ends = definitionOf(r.kind).endsAt?.({ attributes: r.attributes as never });
    const left = ends ? Date.parse(ends.at) - now.getTime() : Number.NaN;
    if (!ends || !(left > 0 && left <= SOON_MS)) continue;
    out.push({
      address: r.address,
      kind: r.kind,
      until: new Date(ends.at).toISOString(),
      left: relativeTime(left),
      ...(ends.reason ? { reason: ends.reason } : {}),
    });
  }
  return out.sort((a, b) => (a.address < b.address ? -1 : 1));
}
