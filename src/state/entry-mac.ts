/**
 * Authentication of what a state holds: every resource entry and every
 * journal entry carries a MAC (HMAC-SHA256 under a key derived from the state
 * key) over its whole canonical JSON, its address, and the state it belongs
 * to (account and lineage). Whoever can write the state file or its database
 * tables but does not hold the key cannot add a pending write, nor point an
 * address at another remote object: the store refuses such an entry, naming
 * it, before anything is sent or written.
 *
 * The store adds the MAC to every entry it records, so no other code computes one.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../config/canonical-json.js';
import { deriveSubkey } from '../crypto/state-key.js';
import type { StateChange } from './backend.js';
import { StateError } from './errors.js';
import type { JournalEntry, ResourceState, StateData } from './types.js';

/** Value of `header.entryMacs` in a state whose entries all carry a MAC. */
export const ENTRY_MACS = 'v1';

export interface MacBinding {
  account: string;
  lineage: string;
}

export function entryMacKey(stateKey: Uint8Array): Uint8Array {
  return deriveSubkey(stateKey, 'entry mac');
}

function macOf(
  key: Uint8Array,
  binding: MacBinding,
  what: 'resource' | 'journal',
  address: string,
  entry: ResourceState | JournalEntry,
): string {
  const text = `cplane/state-entry/v1\0${what}\0${binding.account}\0${binding.lineage}\0${address}\0${canonicalJson(entry, 'mac')}`;
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

function matches(expected: string, actual: string | undefined): boolean {
  if (actual === undefined || actual.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(actual));
}

export function macResource(key: Uint8Array, binding: MacBinding, address: string, resource: ResourceState): ResourceState {
  return { ...resource, mac: macOf(key, binding, 'resource', address, resource) };
}

export function macJournalEntry(key: Uint8Array, binding: MacBinding, entry: JournalEntry): JournalEntry {
  return { ...entry, mac: macOf(key, binding, 'journal', entry.address, entry) };
}

/** The same changes, each entry it writes carrying its MAC. */
export function macChanges(key: Uint8Array, binding: MacBinding, changes: StateChange[]): StateChange[] {
  return changes.map((change) => {
    if (change.type === 'resource') return { ...change, resource: macResource(key, binding, change.address, change.resource) };
    if (change.type === 'journal') return { ...change, entry: macJournalEntry(key, binding, change.entry) };
    return change;
  });
}

/** Adds a MAC to every entry of a state written before entries were authenticated (the upgrade trusts them once). */
export function macAll(key: Uint8Array, binding: MacBinding, data: StateData): void {
  for (const [address, resource] of Object.entries(data.resources)) data.resources[address] = macResource(key, binding, address, resource);
  data.journal = data.journal.map((entry) => macJournalEntry(key, binding, entry));
}

/** What fails its MAC, as `resource ADDRESS` or `pending write OPERATION of ADDRESS`. */
export function unauthenticatedEntries(key: Uint8Array, binding: MacBinding, data: Readonly<StateData>): string[] {
  const found: string[] = [];
  for (const [address, resource] of Object.entries(data.resources)) {
    if (!matches(macOf(key, binding, 'resource', address, resource), resource.mac)) found.push(`resource ${address}`);
  }
  for (const entry of data.journal) {
    if (!matches(macOf(key, binding, 'journal', entry.address, entry), entry.mac))
      found.push(`pending write ${entry.operation} of ${entry.address} (journal entry ${entry.id})`);
  }
  return found;
}

/** Refuses a state with an entry that fails its MAC, before anything is sent or written. */
export function assertAuthentic(key: Uint8Array, binding: MacBinding, data: Readonly<StateData>, location: string): void {
  const forged = unauthenticatedEntries(key, binding, data);
  if (forged.length === 0) return;
  throw new StateError(
    'STATE_ENTRY_FORGED',
    `The state ${location} holds ${forged.length === 1 ? 'an entry' : `${forged.length} entries`} that cplane did not write with this state's key: ${forged.slice(0, 5).join('; ')}${forged.length > 5 ? '; …' : ''}. It was changed outside cplane. Nothing was sent or written.`,
    'Restore the state from a copy you trust (state.json.backup beside a local state, your own copy, or `cplane state push` of one), then run the command again.',
  );
}
