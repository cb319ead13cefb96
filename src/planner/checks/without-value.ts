/**
 * The objects a plan leaves without a value: those of a kind with an optional value (a record) that hold
 * none live, or are created by this plan, and whose step writes none (the configuration gives no value,
 * or gives one the plan does not write, such as `generate`, which applies only to a new record). Without
 * this list a plan of an exported folder applied to another account reads "No changes" while every
 * record is empty.
 */
import type { DesiredResource } from '../../config/types.js';
import type { PlanStep } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { PlannedInputs } from '../stage-inputs.js';
import { liveByKey, liveObjectOf, unreadableFor, type LiveObject } from '../stages/live-account.js';

/** Sorted addresses; with targets, only the addresses the plan covers. */
export function withoutValue(given: PlannedInputs, steps: readonly PlanStep[], targets: readonly string[]): string[] {
  if (given.mode === 'destroy') return [];
  const planned = new Map(steps.map((s) => [s.address, s]));
  const found: string[] = [];
  for (const r of given.desired.resources) {
    const value = definitionOf(r.kind).optionalValue;
    if (!value) continue;
    if (targets.length > 0 && !planned.has(r.address) && !targets.includes(r.address)) continue;
    if (planned.get(r.address)?.changes.some((c) => c.path === value.field)) continue;
    // What could not be read is listed as unreadable already: nothing is known about its value.
    if (unreadableFor(given.live, r.kind, undefined)) continue;
    const live = liveOf(given, r);
    if (!live || !value.present(live.live)) found.push(r.address);
  }
  return found.sort();
}

/** The live object the address is, or will adopt; undefined when the plan creates it. */
function liveOf(given: PlannedInputs, r: DesiredResource): LiveObject | undefined {
  const entry = given.state[r.address];
  const found = entry
    ? liveObjectOf(given.live, entry)
    : liveByKey(given.live, r.kind, definitionOf(r.kind).naturalKey({ desired: r, known: given.known }));
  return found && found.identity.status !== 'gone' ? found : undefined;
}
