/**
 * Pending writes: the journal entries an earlier apply saved and whose answer
 * it never recorded. A plan lists them ("will be resent first") with what
 * their address becomes, and plans no step of its own for those addresses:
 * the resend finishes them, so a plan saved now is still the plan once they
 * are resent. A pending write whose operation its address's kind never sends
 * is refused before anything is sent (the journal is authenticated by the
 * state store; this guards what it authenticates).
 */
import type { JournalEntry, StateData } from '../../state/types.js';
import type { ResourceKind } from '../../config/types.js';
import { kindOf as kindOfAddress, type PendingWrite } from '../../plan-model/index.js';
import { kindOrder, definitionOf } from '../../providers/index.js';

function kindOf(entry: JournalEntry, resources: StateData['resources']): ResourceKind | undefined {
  const kind = entry.kind ?? resources[entry.address]?.kind ?? kindOfAddress(entry.address);
  return kind !== undefined && (kindOrder as string[]).includes(kind) ? (kind as ResourceKind) : undefined;
}

/** Each pending write whose operation is not one its address's kind sends, as `OPERATION of ADDRESS (journal entry ID)`. */
export function foreignPendingWrites(state: Pick<StateData, 'journal' | 'resources'>): string[] {
  return state.journal
    .filter((entry) => {
      const kind = kindOf(entry, state.resources);
      return !kind || !definitionOf(kind).writeOperations.includes(entry.operation);
    })
    .map((entry) => `${entry.operation} of ${entry.address} (journal entry ${entry.id})`);
}

/** The journal as a plan shows it, in the order the writes are resent. */
export function pendingWritesOf(state: Pick<StateData, 'journal' | 'resources'>): PendingWrite[] {
  return state.journal.map((entry) => ({
    address: entry.address,
    kind: kindOf(entry, state.resources) ?? (entry.kind as ResourceKind),
    operation: entry.operation,
    becomes: entry.effects?.forget
      ? 'removed'
      : entry.effects?.id && ('result' in entry.effects.id || 'results' in entry.effects.id) && !state.resources[entry.address]
        ? 'created'
        : 'updated',
    savedAt: entry.createdAt,
  }));
}
