/**
 * Deliveries (`deliverTo`): an object's new one-time secret (a token's plaintext) is written by the receiving
 * object's own step (a record's value write, with its re-wraps for every reader), which depends on the step that
 * makes the secret. The old object the new one replaces must keep working until its successor is delivered, so
 * its revocation (the writes that settle a superseded object) leaves the maker's step and runs last in the
 * receiver's step, still recording its effect on the maker's address (`PlannedWrite.address`). A revocation
 * that waits for no delivery in this plan stays where it is.
 */
import type { PlanStep } from '../../plan-model/index.js';

export function revokeAfterDelivery(steps: readonly PlanStep[]): PlanStep[] {
  const byAddress = new Map(steps.map((s) => [s.address, s]));
  const moved = new Map<string, PlanStep>();
  const dropped = new Set<string>();
  for (const receiver of steps) {
    for (const source of Object.values(receiver.secrets ?? {})) {
      if (!('output' in source)) continue;
      const maker = byAddress.get(source.output.address);
      const revocations = maker?.writes.filter((w) => w.effects.settleSuperseded !== undefined) ?? [];
      if (!maker || revocations.length === 0) continue;
      const kept = maker.writes.filter((w) => !revocations.includes(w));
      const current = moved.get(receiver.address) ?? receiver;
      const notes = [...(current.notes ?? []), `${maker.address}: the old one is revoked only after the new one is delivered here`];
      // A maker left with nothing to do is this step's: its change lines (`revoke superseded token = ID`) come along.
      const changes = kept.length === 0 ? [...current.changes, ...maker.changes] : current.changes;
      const causes = current.causes?.includes('delivery') ? current.causes : [...(current.causes ?? []), 'delivery' as const];
      moved.set(receiver.address, {
        ...current,
        changes,
        causes,
        notes,
        writes: [...current.writes, ...revocations.map((w) => ({ ...w, address: maker.address }))],
      });
      if (kept.length === 0) dropped.add(maker.address);
      else moved.set(maker.address, { ...maker, writes: kept });
    }
  }
  return steps.filter((s) => !dropped.has(s.address)).map((s) => moved.get(s.address) ?? s);
}
