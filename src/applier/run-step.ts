/**
 * One plan step: its `moved` rename and adoption recorded in state first, then its writes in order, each through
 * the journal (send-write.ts). A step is done only when all its writes are.
 */
import type { PlanStep } from '../plan-model/index.js';
import { renamedEntry } from '../state/index.js';
import { Interrupted, type ApplyRun } from './apply-run.js';
import { sendWrite, type WriteOutcome } from './send-write.js';

export async function runStep(step: PlanStep, run: ApplyRun): Promise<WriteOutcome> {
  const { options, interrupted } = run;
  const { state } = options;
  const now = () => (options.now ? options.now() : new Date());
  if (interrupted()) throw new Interrupted();
  const moved = step.moved;
  if (moved) {
    // A `moved` block: the entry is renamed before any write, once (a second run finds it renamed already).
    await state.update((draft) => {
      const entry = draft.resources[moved.from];
      if (!entry || draft.resources[step.address]) return;
      delete draft.resources[moved.from];
      draft.resources[step.address] = renamedEntry(state.crypto, entry, moved.from, step.address);
    });
  }
  if (step.adopt) {
    const adopt = step.adopt;
    const at = now().toISOString();
    await state.update((draft) => {
      const existing = draft.resources[step.address];
      draft.resources[step.address] = {
        kind: step.kind,
        id: adopt.id,
        ...(adopt.parents ? { parents: adopt.parents } : {}),
        inputs: {},
        fingerprints: {},
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
    });
  }
  const outcome: WriteOutcome = { sealed: [], notices: [] };
  // The fingerprints of the values the step's writes carry, recorded with its last write only (as its inputs
  // are): a step is done only when all its writes are. A record's new value version is followed by the re-wraps
  // of its data key for every reader; were its fingerprint recorded with the version, an apply killed before the
  // re-wraps would leave state saying the value is written, the next plan would see no change, and the readers
  // could not read the new value. Recorded last, the next plan still sees the value changed and writes it again,
  // re-wrapped for every reader (docs/access.md, "Reliability"). A generated value has no source to compare with:
  // the write that makes it marks its fingerprint unfinished, so the next plan makes it again all the same.
  const fingerprints: Record<string, string> = {};
  // A write for another address (a revocation after a delivery) records nothing of this step's: the step's own
  // last write records its fingerprints and inputs.
  const lastOwn = step.writes.findLastIndex((w) => w.address === undefined);
  for (const [index, write] of step.writes.entries()) {
    if (interrupted()) throw new Interrupted();
    const { sealed, notices } = await sendWrite(step, write, index === lastOwn, fingerprints, run);
    outcome.sealed.push(...sealed);
    outcome.notices.push(...notices);
  }
  if (lastOwn === -1) {
    await state.update((draft) => {
      if (step.forget) delete draft.resources[step.address];
      else if (step.inputs && draft.resources[step.address]) draft.resources[step.address]!.inputs = step.inputs;
    });
  }
  return outcome;
}
