/**
 * The due stage of a drift check: what time has made due on the account, which `cplane drift` lists in a
 * section of its own (a token in its renewal window or expired, a superseded token whose overlap ended,
 * a rotation due, and any change a kind tags with a maintenance cause, such as a grant past its `until`).
 * It reads the same facts a normal plan acts on (reissue.ts and each kind's `diff`, on the API's clock),
 * and plans nothing.
 */
import type { DueItem, FieldChange } from '../../plan-model/index.js';
import { definitionOf } from '../../providers/index.js';
import type { PlannedInputs } from '../stage-inputs.js';
import { liveObjectOf } from '../stages/live-account.js';
import { expiredChange, renewalChange, supersededRevocations } from '../stages/reissue.js';
import { classOfCause } from '../step-class.js';
import { endedAt, endedWords } from './ends.js';

export function dueItems(given: PlannedInputs): DueItem[] {
  const out: DueItem[] = [];
  for (const r of given.desired.resources) {
    const entry = given.state[r.address];
    const found = entry ? liveObjectOf(given.live, entry) : undefined;
    if (!entry || !found || found.identity.status !== 'live') continue;
    const definition = definitionOf(r.kind);
    const { now, nowForEnds } = given.known;
    // A grant past its `until` is revoked by the next plan (ends.ts), before any diff of it.
    const ended = endedAt(r, nowForEnds);
    if (ended) {
      out.push({ address: r.address, kind: r.kind, cause: 'grant-expired', note: endedWords(ended, nowForEnds) });
      continue;
    }
    const expired = expiredChange(found.identity, nowForEnds);
    const renewing = expired
      ? undefined
      : renewalChange(found.identity, definition.renewal?.({ attributes: r.attributes }), definition.config.noun, now);
    const changes: FieldChange[] = [
      ...(expired ? [expired] : []),
      ...(renewing ? [renewing] : []),
      ...supersededRevocations(given.live, r.address, entry, nowForEnds, false).changes,
      ...definition.diff({ desired: r, live: found.live, state: entry, known: given.known, changedSecrets: [] }).changes,
    ];
    const seen = new Set<string>();
    for (const change of changes) {
      if (!change.cause || classOfCause[change.cause] !== 'maintenance' || seen.has(change.cause)) continue;
      seen.add(change.cause);
      out.push({ address: r.address, kind: r.kind, cause: change.cause, ...(change.note ? { note: change.note } : {}) });
    }
  }
  return out;
}
